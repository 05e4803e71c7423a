//go:build !linux

package mmapbloom

import "os"

// reserve sizes f to size bytes. Off Linux there is no portable fallocate
// here, so the blocks are reserved by writing zeros (as posix_fallocate
// does where the file system cannot allocate): a full disk fails here, not
// in a later add. A full disk is the os error (ENOSPC).
func reserve(f *os.File, size int64) error { return writeZeros(f, size) }

// allocate does nothing off Linux, where holes cannot be found portably:
// a filter file copied sparse there may fault on a write once the disk is
// full (reported as ErrNoSpace).
func (f *Filter) allocate() error { return nil }
