"""The advisory locks the Go library takes (lock.go and lock_linux.go of
mmapbloom/internal/mapping).

Every handle holds flock(2) LOCK_SH and, on Linux, an open file description
lock (fcntl F_OFD_SETLK) of type F_RDLCK on the whole file (start 0, length
0) from open to close. Exclusive operations convert the OFD lock to F_WRLCK
without waiting and back to F_RDLCK; the kernel checks for conflicts before
it changes anything, so a refused conversion keeps the read lock. Go's
Create with overwrite takes flock LOCK_EX on the file it replaces. None of
these calls waits: a conflict raises InUse at once.
"""

import ctypes
import errno
import fcntl
import os

from . import errors

F_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", 37 if os.uname().sysname == "Linux" else None)
F_OFD_SETLKW = getattr(fcntl, "F_OFD_SETLKW", 38)


class _Flock(ctypes.Structure):
    # struct flock (64-bit off_t, as F_OFD_* requires): l_type, l_whence,
    # l_start, l_len, l_pid (must be 0 for OFD locks).
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short),
                ("l_start", ctypes.c_int64), ("l_len", ctypes.c_int64),
                ("l_pid", ctypes.c_int), ("_pad", ctypes.c_int)]


def _retry(call, name):
    while True:
        try:
            return call()
        except InterruptedError:
            continue
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise errors.InUse(f"{name}: filter file in use by another process") from None
            raise


def flock(fd, how, name):
    """flock(2) without waiting: how is fcntl.LOCK_SH or LOCK_EX."""
    _retry(lambda: fcntl.flock(fd, how | fcntl.LOCK_NB), name)


def _ofd(fd, typ, name):
    if F_OFD_SETLK is None:
        return
    lk = bytes(_Flock(l_type=typ, l_whence=os.SEEK_SET, l_start=0, l_len=0, l_pid=0))
    _retry(lambda: fcntl.fcntl(fd, F_OFD_SETLK, lk), name)


def wait_exclusive(fd, name):
    """Take an exclusive lock on a handle that holds none, waiting while
    others hold it (Go: waitExclusive, on a set's LOCK)."""
    if F_OFD_SETLK is None:
        while True:
            try:
                return fcntl.flock(fd, fcntl.LOCK_EX)
            except InterruptedError:
                continue
    lk = bytes(_Flock(l_type=fcntl.F_WRLCK, l_whence=os.SEEK_SET, l_start=0, l_len=0, l_pid=0))
    _retry(lambda: fcntl.fcntl(fd, F_OFD_SETLKW, lk), name)


def lock_shared(fd, name):
    """Take a handle's shared locks (flock LOCK_SH, OFD F_RDLCK)."""
    flock(fd, fcntl.LOCK_SH, name)
    _ofd(fd, fcntl.F_RDLCK, name)


def upgrade(fd, name):
    """Convert the handle's OFD lock to exclusive; InUse if another handle holds the file."""
    if F_OFD_SETLK is None:
        flock(fd, fcntl.LOCK_EX, name)
    else:
        _ofd(fd, fcntl.F_WRLCK, name)


def downgrade(fd, name):
    """Convert the handle's exclusive lock back to shared."""
    if F_OFD_SETLK is None:
        flock(fd, fcntl.LOCK_SH, name)
    else:
        _ofd(fd, fcntl.F_RDLCK, name)
