"""Atomic operations on the shared mapping through libatomic (ctypes).

Bits are set with __atomic_fetch_or_8 and the v2 count is added with
__atomic_fetch_add_8, sequentially consistent, the same instructions the Go
library's sync/atomic uses on amd64 (LOCK OR, LOCK XADD), so Python and Go
processes adding to one file lose no bits. The v1.1 32-bit count saturates
with a __atomic_compare_exchange_4 loop. The environment variable
MMAPBLOOM_LIBATOMIC names another library file, or "none" to behave as if
libatomic were missing (tests use it).
"""

import ctypes
import ctypes.util
import os

SEQ_CST = 5


class Atomics:
    """The libatomic functions, bound with their C types."""

    def __init__(self, lib):
        # getattr: a name starting with two underscores would be mangled here.
        self.fetch_or_8 = getattr(lib, "__atomic_fetch_or_8")
        self.fetch_or_8.argtypes = (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int)
        self.fetch_or_8.restype = ctypes.c_uint64
        self.fetch_add_8 = getattr(lib, "__atomic_fetch_add_8")
        self.fetch_add_8.argtypes = (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int)
        self.fetch_add_8.restype = ctypes.c_uint64
        self.cas_8 = getattr(lib, "__atomic_compare_exchange_8")
        self.cas_8.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_int)
        self.cas_8.restype = ctypes.c_bool
        self.cas_4 = getattr(lib, "__atomic_compare_exchange_4")
        self.cas_4.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_int)
        self.cas_4.restype = ctypes.c_bool

    def raise_64(self, addr, value):
        """Set the uint64 at addr to value unless it is already at least value."""
        old = ctypes.c_uint64(ctypes.c_uint64.from_address(addr).value)
        while old.value < value:
            if self.cas_8(addr, ctypes.addressof(old), value, SEQ_CST, SEQ_CST):
                return

    def add_saturating_32(self, addr, delta):
        """Add delta to the uint32 at addr, stopping at 2^32-1."""
        old = ctypes.c_uint32(ctypes.c_uint32.from_address(addr).value)
        while True:
            new = min(old.value + delta, 0xFFFFFFFF)
            if self.cas_4(addr, ctypes.addressof(old), new, SEQ_CST, SEQ_CST):
                return


_loaded = None


def load():
    """Return the Atomics of libatomic.so.1, or None when it is not available."""
    global _loaded
    if _loaded is None:
        _loaded = _load() or False
    return _loaded or None


def _load():
    name = os.environ.get("MMAPBLOOM_LIBATOMIC") or ctypes.util.find_library("atomic") or "libatomic.so.1"
    if name == "none":
        return None
    try:
        return Atomics(ctypes.CDLL(name))
    except (OSError, AttributeError):
        return None
