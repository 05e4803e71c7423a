package mapping

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// shareRange takes the shared open file description lock of a handle.
func shareRange(f *os.File) error { return ofdLock(f, unix.F_RDLCK) }

// Upgrade converts a handle's shared lock to exclusive, atomically:
// on errs.ErrInUse the handle keeps its shared lock.
func Upgrade(f *os.File) error { return ofdLock(f, unix.F_WRLCK) }

// Downgrade converts an exclusive lock back to shared.
func Downgrade(f *os.File) error { return ofdLock(f, unix.F_RDLCK) }

// WaitExclusive takes an exclusive lock on a handle that holds none,
// waiting while others hold it.
func WaitExclusive(f *os.File) error { return ofdLockCmd(f, unix.F_OFD_SETLKW, unix.F_WRLCK) }

// WaitShared takes a shared lock on a handle that holds none, waiting
// while another holds it exclusively.
func WaitShared(f *os.File) error { return ofdLockCmd(f, unix.F_OFD_SETLKW, unix.F_RDLCK) }

// ofdLock sets an open file description lock of type typ on the whole
// file (start 0, length 0: to the end, however long), without waiting.
func ofdLock(f *os.File, typ int16) error { return ofdLockCmd(f, unix.F_OFD_SETLK, typ) }

// ofdLockCmd sets an open file description lock of type typ on the whole
// file with fcntl command cmd (F_OFD_SETLK, or F_OFD_SETLKW to wait).
func ofdLockCmd(f *os.File, cmd int, typ int16) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart}
	for {
		err := unix.FcntlFlock(f.Fd(), cmd, &lk)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EACCES):
			return fmt.Errorf("mmapbloom: %s: %w", f.Name(), errs.ErrInUse)
		default:
			return fmt.Errorf("mmapbloom: lock %s: %w", f.Name(), err)
		}
	}
}
