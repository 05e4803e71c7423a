package mmapbloom

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// reserve gives f a size of size bytes with its blocks allocated, so that a
// full disk fails here and never later as a SIGBUS on a write through the
// mapping. File systems without fallocate fall back to a sparse truncate.
func reserve(f *os.File, size int64) error {
	err := unix.Fallocate(int(f.Fd()), 0, 0, size)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return f.Truncate(size)
	}
	return err
}
