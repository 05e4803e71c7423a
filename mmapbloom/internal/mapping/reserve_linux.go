package mapping

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Reserve gives the new file f a size of size bytes with its blocks
// allocated, so that a full disk fails here and never later as a fault on
// a write through the mapping: fallocate, or, on file systems without it
// (ext2, some network file systems), writing zeros, as posix_fallocate
// does. f is not yet shared with anyone. A full disk is errs.ErrNoSpace.
func Reserve(f *os.File, size int64) error {
	err := unix.Fallocate(int(f.Fd()), 0, 0, size)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		err = writeZeros(f, size)
	}
	return noSpace(err)
}

// holeAt returns the offset of the first hole (unallocated range) of f
// below size, or size when there is none or the file system cannot say.
func holeAt(f *os.File, from, size int64) int64 {
	off, err := unix.Seek(int(f.Fd()), from, unix.SEEK_HOLE)
	if err != nil || off > size {
		return size
	}
	return off
}

// dataAt returns the offset of the first allocated byte of f at or after
// from, or size when there is none below size.
func dataAt(f *os.File, from, size int64) int64 {
	off, err := unix.Seek(int(f.Fd()), from, unix.SEEK_DATA)
	if err != nil || off > size {
		return size
	}
	return off
}

// Allocate makes sure every block of a file opened for writing is
// allocated, so that a full disk fails Open and never an add: a file
// copied sparse, or a file system without fallocate at create, leaves
// holes that a write through the mapping would need space for. One
// SEEK_HOLE tells there is none (the usual case, O(1)); else fallocate
// fills them without touching the data, or, where it is not supported,
// each page of a hole is touched through the mapping with an atomic OR of
// 0, which allocates it and can lose no bit another process sets there.
// data is the whole file mapped shared and writable; guard runs the
// touching of pages inside the caller's fault guard. Errors:
// errs.ErrNoSpace, the fallocate error.
func Allocate(file *os.File, data []byte, guard func(op func() error) error) error {
	size := int64(len(data))
	if holeAt(file, 0, size) >= size {
		return nil
	}
	err := unix.Fallocate(int(file.Fd()), 0, 0, size)
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.ENOSYS) {
		if err != nil {
			return fmt.Errorf("mmapbloom: allocate the blocks of %s: %w", file.Name(), noSpace(err))
		}
		return nil
	}
	err = guard(func() error {
		all, err := Words(data)
		if err != nil {
			return err
		}
		page := int64(os.Getpagesize())
		for hole := holeAt(file, 0, size); hole < size; hole = holeAt(file, hole, size) {
			end := dataAt(file, hole, size)
			for off := hole / page * page; off < end; off += page {
				touch(&all[off/8]) // a write: the fault allocates the page
			}
			hole = end
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mmapbloom: allocate the blocks of %s: %w", file.Name(), err)
	}
	return nil
}
