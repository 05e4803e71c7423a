//go:build !linux

package mapping

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Without open file description locks, the flock lock alone is converted;
// see lock.go for the window this leaves.

func shareRange(*os.File) error { return nil }

func Upgrade(f *os.File) error {
	err := flock(f, unix.LOCK_EX)
	if err != nil {
		_ = flock(f, unix.LOCK_SH)
	}
	return err
}

func Downgrade(f *os.File) error { return flock(f, unix.LOCK_SH) }

// WaitExclusive takes an exclusive flock lock on a handle that holds
// none, waiting while others hold it.
func WaitExclusive(f *os.File) error { return waitFlock(f, unix.LOCK_EX) }

// WaitShared takes a shared flock lock on a handle that holds none,
// waiting while another holds it exclusively.
func WaitShared(f *os.File) error { return waitFlock(f, unix.LOCK_SH) }

// waitFlock takes the flock lock how, waiting for it.
func waitFlock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
