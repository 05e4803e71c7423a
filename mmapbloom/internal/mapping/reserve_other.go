//go:build !linux

package mapping

import "os"

// Reserve sizes f to size bytes. Off Linux there is no portable fallocate
// here, so the blocks are reserved by writing zeros (as posix_fallocate
// does where the file system cannot allocate): a full disk fails here, not
// in a later add. A full disk is the os error (ENOSPC).
func Reserve(f *os.File, size int64) error { return writeZeros(f, size) }

// Allocate does nothing off Linux, where holes cannot be found portably:
// a filter file copied sparse there may fault on a write once the disk is
// full (reported as errs.ErrNoSpace).
func Allocate(*os.File, []byte, func(op func() error) error) error { return nil }
