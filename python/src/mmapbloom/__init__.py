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

import sys as _sys

if _sys.byteorder != "little":  # the files are little-endian and read as native words, as in Go
    raise ImportError("mmapbloom needs a little-endian host (the Go library does not build on big-endian ones either)")

from ._version import __version__  # noqa: E402 (after the byte-order check)
from .errors import (BadK, BadSet, BadMagic, BadScheme, ChecksumError, Closed, FileChanged, FilterExists, FormatError,
                     InUse, InvalidArgument, Mismatch, MissingDependency, MmapBloomError, NoAtomics, ReadOnly, Sealed,
                     ShortHeader, SizeMismatch, TooLarge, Truncated, UnknownFlags, UnknownLayout, UnknownScheme,
                     UnknownVersion)
from .filter import Filter
from .hashing import murmur64a
from .header import Header, crc32c, decode
from .fset import FilterSet  # noqa: E402
from .opening import create, open, open_or_create  # noqa: A004 (pybloomfiltermmap3's name)


__all__ = [
    "open", "create", "open_or_create", "Filter", "FilterSet", "BadSet", "Header", "decode", "crc32c", "murmur64a",
    "MmapBloomError", "FormatError", "ShortHeader", "BadMagic", "UnknownVersion", "ChecksumError",
    "UnknownLayout", "UnknownScheme", "BadScheme", "UnknownFlags", "BadK", "SizeMismatch", "TooLarge",
    "Truncated", "InvalidArgument", "FilterExists", "InUse", "ReadOnly", "Sealed", "Closed", "Mismatch",
    "FileChanged", "NoAtomics", "MissingDependency", "__version__",
]
