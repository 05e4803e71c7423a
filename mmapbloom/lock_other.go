//go:build !linux

package mmapbloom

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Without open file description locks, the flock lock alone is converted;
// see lock.go for the window this leaves.

func shareRange(*os.File) error { return nil }

func upgradeLock(f *os.File) error {
	err := flock(f, unix.LOCK_EX)
	if err != nil {
		_ = flock(f, unix.LOCK_SH)
	}
	return err
}

func downgradeLock(f *os.File) error { return flock(f, unix.LOCK_SH) }

// waitExclusive takes an exclusive flock lock on a handle that holds
// none, waiting while others hold it.
func waitExclusive(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
