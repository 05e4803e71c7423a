package mmapbloom

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Advisory whole-file locks (flock(2)) coordinate the processes sharing a
// filter file: every open handle holds a shared lock; operations that are
// not monotone (Clear, Merge into a filter, Seal, Create with Overwrite)
// convert it to an exclusive lock and fail at once with ErrInUse when
// another handle holds one. flock locks are per open file description, so
// two Opens in one process also exclude each other's exclusive operations.

// lockShared takes or converts to a shared lock without waiting.
func lockShared(f *os.File) error { return flock(f, unix.LOCK_SH) }

// lockExclusive takes or converts to an exclusive lock without waiting.
func lockExclusive(f *os.File) error { return flock(f, unix.LOCK_EX) }

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return fmt.Errorf("%s: %w", f.Name(), ErrInUse)
		default:
			return fmt.Errorf("mmapbloom: lock %s: %w", f.Name(), err)
		}
	}
}
