"""The 64-byte header of a filter file: decode, encode, validate.

This is format/FORMAT.md in Python, checked in the same order as the Go
package ``format`` (errors.py names the matching Go error of each check).
All integers are little-endian; the bit array starts at byte 64.
"""

import math
import struct
from dataclasses import dataclass, replace

from . import errors

HEADER_SIZE = 64
MAGIC_V1 = 0x01464C42  # "BLF\x01"
MAGIC_V2 = 0x02464C42  # "BLF\x02"
MAX_K = 64
MAX_BITS_V2 = 1 << 50
OFF_COUNT = 8
FLAG_SEALED = 1

V1, V2 = 1, 2
LAYOUT_CLASSIC, LAYOUT_BLOCKED512 = 1, 2
SCHEME_MURMUR_DOUBLE_V1 = 1  # murmur2-double-v1, v1.1 files only
SCHEME_MURMUR_DOUBLE = 2  # murmur2-double, v2 classic
SCHEME_MURMUR_SEEDS = 3  # murmur2-seeds, v2 classic
SCHEME_XXH3_BLOCKED = 4  # xxh3-blocked, v2 blocked512
SCHEME_XXH3_REMIX = 5  # xxh3-remix, v2 classic

LAYOUT_NAMES = {LAYOUT_CLASSIC: "classic", LAYOUT_BLOCKED512: "blocked512"}
SCHEME_NAMES = {
    SCHEME_MURMUR_DOUBLE_V1: "murmur2-double-v1",
    SCHEME_MURMUR_DOUBLE: "murmur2-double",
    SCHEME_MURMUR_SEEDS: "murmur2-seeds",
    SCHEME_XXH3_BLOCKED: "xxh3-blocked",
    SCHEME_XXH3_REMIX: "xxh3-remix",
}

_V2_CLASSIC_SCHEMES = (SCHEME_MURMUR_DOUBLE, SCHEME_MURMUR_SEEDS, SCHEME_XXH3_REMIX)

# v1.1: magic, seed, count, n, p, m, k, 6 reserved, file crc, byte size.
_V1 = struct.Struct("<IIIIdII24xII")
# v2: magic, layout, scheme, flags, k, count, p, m, n, seed, byte size, data crc, header crc.
_V2 = struct.Struct("<IBBBBQdQQQQII")


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC32C = _crc32c_table()


def crc32c(data, crc=0):
    """Return the CRC-32C (Castagnoli) of data, continuing from crc
    (Go: crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), data))."""
    table = _CRC32C
    c = crc ^ 0xFFFFFFFF
    for b in bytes(data):
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def header_crc(b):
    """Return the v2 header checksum: CRC-32C of bytes 0..8 then 16..60."""
    return crc32c(b[16:60], crc32c(b[0:8]))


def byte_size(version, m):
    """Bytes of bit array for m bits: m/8 in v1.1, ceil(m/512)*64 in v2."""
    if version == V1:
        return m // 8
    if version == V2:
        return (m + 511) // 512 * 64
    return 0


@dataclass(frozen=True)
class Header:
    """A decoded header of either version (Go: format.Header).

    For v1.1, layout is classic, scheme is murmur2-double-v1 and flags and
    data_crc are 0. count is the value when the header was read.
    """

    version: int
    layout: int
    scheme: int
    flags: int
    k: int
    count: int
    p: float
    m: int
    n: int
    seed: int
    byte_size: int
    data_crc: int = 0

    @property
    def sealed(self):
        """True when the sealed flag is set (the bit array is frozen)."""
        return bool(self.flags & FLAG_SEALED)

    def with_count(self, count):
        """Return a copy with another count."""
        return replace(self, count=count)

    def validate(self):
        """Apply checks 5..7 of FORMAT.md's validation order; raise a FormatError."""
        if self.version not in (V1, V2):
            raise errors.UnknownVersion(f"version {self.version}")
        if self.layout not in LAYOUT_NAMES:
            raise errors.UnknownLayout(f"unknown bit-array layout id {self.layout}")
        if self.scheme not in SCHEME_NAMES:
            raise errors.UnknownScheme(f"unknown hash scheme id {self.scheme}")
        if not _scheme_valid(self.version, self.layout, self.scheme):
            raise errors.BadScheme(
                f"hash scheme {SCHEME_NAMES[self.scheme]} not valid with layout "
                f"{LAYOUT_NAMES[self.layout]} in {'v1.1' if self.version == V1 else 'v2'}")
        if self.version == V1 and self.flags:
            raise errors.UnknownFlags(f"flags {self.flags:#x}, but v1.1 has no flags")
        if self.flags & ~FLAG_SEALED:
            raise errors.UnknownFlags(f"unknown flag bits set: {self.flags:#x}")
        if not 1 <= self.k <= MAX_K:
            raise errors.BadK(f"number of hash functions k={self.k} out of range 1..64")
        if self.m == 0:
            raise errors.SizeMismatch("m=0, a filter needs at least one bit")
        if self.version == V1:
            if self.m >= 1 << 32:
                raise errors.TooLarge(f"v1.1 m={self.m} does not fit in 32 bits")
            if self.m % 64:
                raise errors.SizeMismatch(f"v1.1 m={self.m} is not a multiple of 64")
        else:
            if self.m > MAX_BITS_V2:
                raise errors.TooLarge(f"m={self.m} exceeds the v2 limit of {MAX_BITS_V2} bits")
            if self.layout == LAYOUT_BLOCKED512 and self.m % 512:
                raise errors.SizeMismatch(f"blocked512 m={self.m} is not a multiple of 512")
        want = byte_size(self.version, self.m)
        if self.byte_size != want:
            raise errors.SizeMismatch(f"m={self.m} needs byte size {want}, header says {self.byte_size}")

    def encode(self):
        """Validate and return the 64 header bytes (v2: with its checksum)."""
        self.validate()
        if self.version == V1:
            for name in ("seed", "n", "count"):
                if getattr(self, name) >= 1 << 32:
                    raise errors.TooLarge(f"v1.1 {name}={getattr(self, name)} does not fit in 32 bits")
            return _V1.pack(MAGIC_V1, self.seed, self.count, self.n, self.p, self.m, self.k, 0, self.byte_size)
        b = bytearray(_V2.pack(MAGIC_V2, self.layout, self.scheme, self.flags, self.k, self.count,
                               self.p, self.m, self.n, self.seed, self.byte_size, self.data_crc, 0))
        struct.pack_into("<I", b, 60, header_crc(b))
        return bytes(b)

    def check_file_size(self, size):
        """Raise Truncated unless a file of size bytes holds the header and the bit array."""
        if size < HEADER_SIZE or size - HEADER_SIZE < self.byte_size:
            raise errors.Truncated(
                f"file truncated: {size} bytes, header and bit array need {HEADER_SIZE} + {self.byte_size}")


def _scheme_valid(version, layout, scheme):
    if version == V1:
        return layout == LAYOUT_CLASSIC and scheme == SCHEME_MURMUR_DOUBLE_V1
    if layout == LAYOUT_CLASSIC:
        return scheme in _V2_CLASSIC_SCHEMES
    return layout == LAYOUT_BLOCKED512 and scheme == SCHEME_XXH3_BLOCKED


def decode(b):
    """Parse and validate the first 64 bytes of b; raise a FormatError
    subclass for the first failed check (Go: format.Decode)."""
    b = bytes(b[:HEADER_SIZE])
    if len(b) < HEADER_SIZE:
        raise errors.ShortHeader(f"header too short: got {len(b)} bytes, need 64")
    if b[0:3] != b"BLF":
        raise errors.BadMagic(f"not a Bloom filter file (magic {struct.unpack_from('<I', b)[0]:#010x})")
    version = b[3]
    if version == V1:
        _, seed, count, n, p, m, k, _, size = _V1.unpack(b)
        h = Header(V1, LAYOUT_CLASSIC, SCHEME_MURMUR_DOUBLE_V1, 0, k, count, p, m, n, seed, size)
    elif version == V2:
        (_, layout, scheme, flags, k, count, p, m, n, seed, size, data_crc, stored) = _V2.unpack(b)
        got = header_crc(b)
        if stored != got:
            raise errors.ChecksumError(
                f"header corrupted (checksum mismatch): stored crc {stored:#010x}, computed {got:#010x}")
        h = Header(V2, layout, scheme, flags, k, count, p, m, n, seed, size, data_crc)
    else:
        raise errors.UnknownVersion(f"unsupported format version byte {version} (this module reads 1 and 2)")
    h.validate()
    return h


def new_header(version, layout, scheme, k, p, m, n, seed):
    """Build the header of a new filter (count 0, not sealed), validated."""
    if math.isnan(p):
        raise errors.InvalidArgument("p is NaN")
    h = Header(version, layout, scheme, 0, k, 0, p, m, n, seed, byte_size(version, m))
    h.validate()
    return h
