"""mmapbloom: Bloom filter files shared between Python and Go processes.

A pure-Python reader and writer of the mmapbloom file format
(format/FORMAT.md in the repository): v1.1 and v2 files, classic and
blocked-512 layouts, every hash scheme. Bits are set with the same atomic
64-bit OR on the shared mapping as the Go library (through libatomic), and
every handle takes the same advisory locks, so any number of Python and Go
processes can add to and test one file at once, with no server::

    import mmapbloom
    with mmapbloom.create("seen.bloom", 1_000_000, 0.001) as f:
        f.add("https://example.com/")      # False: it was new
        "https://example.com/" in f        # True
    with mmapbloom.open("seen.bloom") as f:  # read-only
        len(f)                              # 1
"""

import os as _os
import sys as _sys

if _sys.byteorder != "little":  # the files are little-endian and read as native words, as in Go
    raise ImportError("mmapbloom needs a little-endian host (the Go library does not build on big-endian ones either)")

from .create import create  # noqa: E402 (after the byte-order check)
from .errors import (BadK, BadMagic, BadScheme, ChecksumError, Closed, FileChanged, FilterExists, FormatError,
                     InUse, InvalidArgument, Mismatch, MmapBloomError, NoAtomics, ReadOnly, Sealed,
                     ShortHeader, SizeMismatch, TooLarge, Truncated, UnknownFlags, UnknownLayout, UnknownScheme,
                     UnknownVersion)
from .filter import Filter
from .hashing import murmur64a
from .header import Header, crc32c, decode

__version__ = "0.1.0"

__all__ = [
    "open", "create", "Filter", "Header", "decode", "crc32c", "murmur64a",
    "MmapBloomError", "FormatError", "ShortHeader", "BadMagic", "UnknownVersion", "ChecksumError",
    "UnknownLayout", "UnknownScheme", "BadScheme", "UnknownFlags", "BadK", "SizeMismatch", "TooLarge",
    "Truncated", "InvalidArgument", "FilterExists", "InUse", "ReadOnly", "Sealed", "Closed", "Mismatch",
    "FileChanged", "NoAtomics",
]


def open(path, mode="r", *, single_writer=False, exact_count=False):  # noqa: A001 (the pybloomfiltermmap3 name)
    """Open the filter file at path: mode "r" (read-only) or "rw".

    It reads and validates the 64-byte header (magic, version, CRC-32C,
    layout, scheme, k, sizes, the file long enough) and maps the file; it
    reads nothing of the bit array. The handle holds a shared advisory lock
    until close, so Go's Seal, Clear and Merge refuse while it is open.

    "rw" needs libatomic.so.1 for the atomic OR (NoAtomics otherwise), unless
    single_writer=True: then the handle holds the file's exclusive lock
    until close (InUse if anyone else has it open; others are refused while
    it holds it) and writes without atomics. exact_count=True adds every
    add to the header count at once instead of in groups of 256.

    Raises OSError (FileNotFoundError, PermissionError), a FormatError
    subclass, InUse, NoAtomics, TooLarge.
    """
    if mode not in ("r", "rw"):
        raise ValueError(f'mode must be "r" or "rw", not {mode!r}')
    path = _os.fspath(path)
    writable = mode == "rw"
    fd = _os.open(path, (_os.O_RDWR if writable else _os.O_RDONLY) | _os.O_CLOEXEC)
    return Filter(fd, path, writable, single_writer=single_writer, exact_count=exact_count)
