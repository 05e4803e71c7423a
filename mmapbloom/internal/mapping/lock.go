package mapping

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// Advisory whole-file locks coordinate the processes sharing a filter file:
// every open handle holds a shared lock until Close; operations that are
// not monotone (Clear, Merge into a filter, Seal, Unseal, Create with
// Overwrite) need an exclusive one and fail at once with errs.ErrInUse when
// another handle holds any lock. No call ever waits for a lock. Locks
// belong to the open file description, so two Opens in one process also
// exclude each other's exclusive operations.
//
// Two kinds of lock are used, because flock(2) cannot convert a shared
// lock to an exclusive one atomically: the kernel drops the shared lock
// first, and a LOCK_NB attempt that then fails leaves the handle with no
// lock at all, so two handles trying Clear at once could each lose theirs
// and let a third operation run while both still map the file.
//
//   - flock(2) LOCK_SH, held by every handle from Open to Close. Create
//     with Overwrite takes LOCK_EX, without waiting, on the file it
//     replaces, from a descriptor that holds no lock (LockExclusive).
//   - On Linux, an open file description lock (fcntl F_OFD_SETLK) on the
//     whole file: F_RDLCK held by every handle, converted to F_WRLCK for
//     the time of an exclusive operation (Upgrade, Downgrade).
//     The kernel checks for conflicts before it changes anything, so a
//     failed conversion leaves the read lock in place. Elsewhere the
//     flock lock is converted, with the window described above.
//
// Both kinds are advisory and local: processes on other hosts sharing the
// file over a network file system are not excluded reliably.

// LockShared takes the shared locks of an open handle without waiting.
func LockShared(f *os.File) error {
	if err := flock(f, unix.LOCK_SH); err != nil {
		return err
	}
	return shareRange(f)
}

// LockExclusive takes an exclusive flock lock, without waiting, on a
// descriptor that holds no lock.
func LockExclusive(f *os.File) error { return flock(f, unix.LOCK_EX) }

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return fmt.Errorf("mmapbloom: %s: %w", f.Name(), errs.ErrInUse)
		default:
			return fmt.Errorf("mmapbloom: lock %s: %w", f.Name(), err)
		}
	}
}
