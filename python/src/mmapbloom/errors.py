"""Exceptions raised by mmapbloom, mirroring the Go library's sentinel errors.

Every exception derives from :class:`MmapBloomError`. Header validation
failures derive from :class:`FormatError` (also a :class:`ValueError`), one
class per error of the Go package ``format``, raised in the same order of
checks (format/FORMAT.md, "Validation order").
"""


class MmapBloomError(Exception):
    """Base class of every mmapbloom exception."""


class FormatError(MmapBloomError, ValueError):
    """The file is not a valid filter file (Go: a format.Err* value)."""


class ShortHeader(FormatError):
    """Fewer than 64 bytes of header (format.ErrShortHeader)."""


class BadMagic(FormatError):
    """The file does not start with "BLF": not a filter file (format.ErrBadMagic)."""


class UnknownVersion(FormatError):
    """The version byte is neither 1 (v1.1) nor 2 (format.ErrUnknownVersion)."""


class ChecksumError(FormatError):
    """The v2 header CRC-32C does not match: header corrupted (format.ErrChecksum)."""


class UnknownLayout(FormatError):
    """Unknown layout id (format.ErrUnknownLayout)."""


class UnknownScheme(FormatError):
    """Unknown hash scheme id (format.ErrUnknownScheme)."""


class BadScheme(FormatError):
    """Hash scheme not valid for the layout or version (format.ErrBadScheme)."""


class UnknownFlags(FormatError):
    """Unknown flag bits set (format.ErrUnknownFlags)."""


class BadK(FormatError):
    """k outside 1..64 (format.ErrBadK)."""


class SizeMismatch(FormatError):
    """m and the byte size disagree, or m breaks its layout's rule (format.ErrSizeMismatch)."""


class TooLarge(FormatError):
    """A value does not fit the format or this platform (format.ErrTooLarge, mmapbloom.ErrTooLarge)."""


class Truncated(FormatError):
    """The file is shorter than the header plus the bit array (format.ErrTruncated)."""


class InvalidArgument(MmapBloomError, ValueError):
    """A bad capacity, error rate, k, m or option combination
    (Go: ErrInvalidN, ErrInvalidP, ErrInvalidK, ErrInvalidM, ErrBadOptions)."""


class FilterExists(MmapBloomError, FileExistsError):
    """create: the path exists and overwrite was not asked for (ErrExists)."""


class InUse(MmapBloomError):
    """Another handle holds the file: an exclusive operation (clear, union
    into a filter, overwrite) or an open against an exclusive holder (ErrInUse)."""


class ReadOnly(MmapBloomError):
    """A writing call on a filter opened with mode "r" (ErrReadOnly)."""


class Sealed(MmapBloomError):
    """A writing call on a sealed filter (ErrSealed)."""


class Closed(MmapBloomError):
    """A call on a closed filter (ErrClosed)."""


class Mismatch(MmapBloomError, ValueError):
    """union: the filters differ in m, k, layout, scheme or seed (ErrMismatch)."""


class FileChanged(MmapBloomError):
    """The file was shrunk or its header rewritten while mapped (ErrFileChanged)."""


class BadSet(MmapBloomError, ValueError):
    """Not a filter set, or a set whose MANIFEST, CONTROL or layers are
    invalid or disagree (ErrBadSet)."""


class MissingDependency(MmapBloomError, ImportError):
    """A module this call needs is not installed; the message says what to
    install for the interpreter running."""


class NoAtomics(MmapBloomError):
    """libatomic.so.1 was not found, so shared writes cannot be made safely;
    open with single_writer=True to write alone."""
