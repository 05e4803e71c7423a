"""Header checks and hostile files: every bad-file case of the Go library
(format/header_test.go TestDecodeErrors, mmapbloom's open checks) raises
its exception, never crashes."""

import os
import re
import random
import struct
import unittest

import mmapbloom
from mmapbloom import header as H

from .common import REPO, TempDirTest, require_xxhash

le_u32, le_u64 = "<I", "<Q"


def valid_v1():
    return H.Header(H.V1, H.LAYOUT_CLASSIC, H.SCHEME_MURMUR_DOUBLE_V1, 0, 7, 956, 0.01, 9600, 1000, 7, 1200)


def valid_v2(layout=H.LAYOUT_CLASSIC, scheme=H.SCHEME_MURMUR_DOUBLE):
    m = 1 << 20
    return H.Header(H.V2, layout, scheme, 0, 11, 42, 0.001, m, 50_000, 0x9E3779B97F4A7C15, H.byte_size(H.V2, m))


def fix_crc(b):
    struct.pack_into(le_u32, b, 60, H.header_crc(b))


def edit(h, mod, crc=True):
    b = bytearray(h.encode())
    mod(b)
    if crc and h.version == H.V2:
        fix_crc(b)
    return bytes(b)


def put(fmt, off, v):
    return lambda b: struct.pack_into(fmt, b, off, v)


def set_m2(m):
    def mod(b):
        struct.pack_into(le_u64, b, 24, m)
        struct.pack_into(le_u64, b, 48, H.byte_size(H.V2, m))
    return mod


def setb(off, v):
    def mod(b):
        b[off] = v
    return mod


def seq(*mods):
    def mod(b):
        for m in mods:
            m(b)
    return mod


v1, v2 = valid_v1(), valid_v2()
blocked = valid_v2(H.LAYOUT_BLOCKED512, H.SCHEME_XXH3_BLOCKED)
E = mmapbloom
# Go's TestDecodeErrors, case for case.
DECODE_CASES = [
    ("empty", b"", E.ShortHeader),
    ("63 bytes", v1.encode()[:63], E.ShortHeader),
    ("bad magic byte 0", edit(v1, setb(0, ord("X"))), E.BadMagic),
    ("bad magic byte 2", edit(v2, setb(2, ord("f"))), E.BadMagic),
    ("zero file", bytes(64), E.BadMagic),
    ("version 0", edit(v1, setb(3, 0)), E.UnknownVersion),
    ("version 3", edit(v2, setb(3, 3)), E.UnknownVersion),
    ("version 255", edit(v2, setb(3, 255)), E.UnknownVersion),
    ("v2 header crc", edit(v2, lambda b: b.__setitem__(60, b[60] ^ 1), crc=False), E.ChecksumError),
    ("v2 edited field without crc", edit(v2, setb(7, 3), crc=False), E.ChecksumError),
    ("crc checked before layout", edit(v2, setb(4, 0), crc=False), E.ChecksumError),
    ("layout 0", edit(v2, setb(4, 0)), E.UnknownLayout),
    ("layout 3", edit(v2, setb(4, 3)), E.UnknownLayout),
    ("layout 255", edit(v2, setb(4, 255)), E.UnknownLayout),
    ("layout checked before k", edit(v2, seq(setb(4, 9), setb(7, 0))), E.UnknownLayout),
    ("scheme 0", edit(v2, setb(5, 0)), E.UnknownScheme),
    ("scheme 6", edit(v2, setb(5, 6)), E.UnknownScheme),
    ("scheme 255", edit(v2, setb(5, 255)), E.UnknownScheme),
    ("v1 scheme in v2", edit(v2, setb(5, H.SCHEME_MURMUR_DOUBLE_V1)), E.BadScheme),
    ("classic with xxh3-blocked", edit(v2, setb(5, H.SCHEME_XXH3_BLOCKED)), E.BadScheme),
    ("blocked with murmur-double", edit(blocked, setb(5, H.SCHEME_MURMUR_DOUBLE)), E.BadScheme),
    ("blocked with murmur-seeds", edit(blocked, setb(5, H.SCHEME_MURMUR_SEEDS)), E.BadScheme),
    ("blocked with xxh3-remix", edit(blocked, setb(5, H.SCHEME_XXH3_REMIX)), E.BadScheme),
    ("flags bit 1", edit(v2, setb(6, 2)), E.UnknownFlags),
    ("flags bit 7 and sealed", edit(v2, setb(6, 0x81)), E.UnknownFlags),
    ("flags checked before k", edit(v2, seq(setb(6, 4), setb(7, 0))), E.UnknownFlags),
    ("v2 k=0", edit(v2, setb(7, 0)), E.BadK),
    ("v2 k=65", edit(v2, setb(7, 65)), E.BadK),
    ("v2 k=255", edit(v2, setb(7, 255)), E.BadK),
    ("v1 k=0", edit(v1, put(le_u32, 28, 0)), E.BadK),
    ("v1 k=65", edit(v1, put(le_u32, 28, 65)), E.BadK),
    ("v1 k=2^32-1", edit(v1, put(le_u32, 28, 0xFFFFFFFF)), E.BadK),
    ("k checked before m", edit(v2, seq(setb(7, 0), put(le_u64, 24, 0))), E.BadK),
    ("v2 m=0", edit(v2, set_m2(0)), E.SizeMismatch),
    ("v2 m above MaxBitsV2", edit(v2, set_m2(H.MAX_BITS_V2 + 512)), E.TooLarge),
    ("v2 m=2^64-1", edit(v2, put(le_u64, 24, (1 << 64) - 1)), E.TooLarge),
    ("v2 byte size short", edit(v2, put(le_u64, 48, H.byte_size(H.V2, 1 << 20) - 1)), E.SizeMismatch),
    ("v2 byte size not padded", edit(v2, seq(put(le_u64, 24, 520), put(le_u64, 48, 65))), E.SizeMismatch),
    ("v2 byte size zero", edit(v2, put(le_u64, 48, 0)), E.SizeMismatch),
    ("blocked m not multiple of 512", edit(blocked, set_m2((1 << 20) + 64)), E.SizeMismatch),
    ("v1 m=0", edit(v1, seq(put(le_u32, 24, 0), put(le_u32, 60, 0))), E.SizeMismatch),
    ("v1 m not multiple of 64", edit(v1, seq(put(le_u32, 24, 9608), put(le_u32, 60, 1201))), E.SizeMismatch),
    ("v1 byte size short", edit(v1, put(le_u32, 60, 1199)), E.SizeMismatch),
    ("v1 byte size padded like v2", edit(v1, put(le_u32, 60, 1216)), E.SizeMismatch),
]


class DecodeTest(unittest.TestCase):
    def test_crc32c(self):
        self.assertEqual(H.crc32c(b"123456789"), 0xE3069283)  # the CRC-32C check value
        self.assertEqual(H.crc32c(b""), 0)

    def test_decode_errors(self):
        for name, b, exc in DECODE_CASES:
            with self.subTest(name):
                with self.assertRaises(exc) as cm:
                    H.decode(b)
                self.assertIsInstance(cm.exception, mmapbloom.FormatError)
                self.assertIsInstance(cm.exception, ValueError)
                for other in (E.ShortHeader, E.BadMagic, E.UnknownVersion, E.ChecksumError, E.UnknownLayout,
                              E.UnknownScheme, E.BadScheme, E.UnknownFlags, E.BadK, E.SizeMismatch, E.TooLarge):
                    if other is not exc:
                        self.assertNotIsInstance(cm.exception, other)

    def test_go_golden_headers(self):
        """format/testdata's headers, written by Go, decode to Go's fields and re-encode byte for byte."""
        want = {
            "v1.golden": H.Header(H.V1, H.LAYOUT_CLASSIC, H.SCHEME_MURMUR_DOUBLE_V1, 0, 10, 123_456, 0.001,
                                  14_377_600, 1_000_000, 0xDEADBEEF, 14_377_600 // 8),
            "v2.golden": H.Header(H.V2, H.LAYOUT_BLOCKED512, H.SCHEME_XXH3_BLOCKED, H.FLAG_SEALED, 8,
                                  0x0102030405060708, 0.005, 1 << 33, 1_000_000_000, 0x1122334455667788, 1 << 30,
                                  0xCAFEBABE),
        }
        for name, h in want.items():
            with open(os.path.join(REPO, "format", "testdata", name), "rb") as f:
                b = f.read()
            self.assertEqual(H.decode(b), h)
            self.assertEqual(h.encode(), b[:64])

    def test_every_immutable_byte_is_checked(self):
        b = valid_v2().encode()
        for i in list(range(0, 8)) + list(range(16, 64)):
            for bit in range(8):
                c = bytearray(b)
                c[i] ^= 1 << bit
                with self.assertRaises(mmapbloom.FormatError, msg=f"byte {i} bit {bit}"):
                    H.decode(c)
        c = bytearray(b)
        c[8:16] = b"\xff" * 8  # the count is mutable
        self.assertEqual(H.decode(c).count, (1 << 64) - 1)


class FuzzTest(unittest.TestCase):
    def test_mutated_headers(self):
        """Random byte edits of valid headers, with and without a fixed crc:
        decode returns a header or raises a FormatError, nothing else."""
        rng = random.Random(1)
        bases = [valid_v1().encode(), valid_v2().encode(), blocked.encode()]
        decoded = 0
        for _ in range(20_000):
            b = bytearray(rng.choice(bases))
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(64)] = rng.randrange(256)
            if b[3] == 2 and rng.random() < 0.7:
                fix_crc(b)
            b = bytes(b[:rng.choice((64, 64, 64, rng.randrange(64)))])
            try:
                H.decode(b)
                decoded += 1
            except mmapbloom.FormatError:
                pass
        self.assertGreater(decoded, 100)


class HostileFileTest(TempDirTest):
    """open() of bad files, in both modes: the header errors above, plus a
    short file, a truncated bit array, a directory and a FIFO."""

    def write(self, data, name="bad.bloom"):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def assert_open_raises(self, path, exc):
        for mode in ("r", "rw"):
            with self.subTest(path=os.path.basename(path), mode=mode), self.assertRaises(exc):
                mmapbloom.open(path, mode)

    def test_header_errors_from_files(self):
        for name, b, exc in DECODE_CASES:
            size = 64 + 1200 if len(b) == 64 else 0
            path = self.write(b + bytes(max(0, size - len(b))))
            self.assert_open_raises(path, exc)
            with self.assertRaisesRegex(exc, "^" + re.escape(path) + ": ", msg=name):
                mmapbloom.open(path)

    @require_xxhash  # the blocked header's scheme hashes with xxh3
    def test_truncated_bit_array(self):
        for h in (valid_v1(), valid_v2(), blocked):
            full = h.encode() + bytes(h.byte_size)
            self.assert_open_raises(self.write(full[:-1]), mmapbloom.Truncated)
            self.assert_open_raises(self.write(full[:64]), mmapbloom.Truncated)
            with mmapbloom.open(self.write(full + b"extra")) as f:  # trailing bytes are allowed
                self.assertEqual(len(f), h.count)

    def test_not_a_regular_file(self):
        os.mkdir(self.path("dir"))  # a directory opens as a filter set: this one is none
        for mode in ("r", "rw"):
            with self.assertRaisesRegex(mmapbloom.BadSet, "no MANIFEST: not a filter set"):
                mmapbloom.open(self.path("dir"), mode)
        os.mkfifo(self.path("fifo"))  # no writer: an open for reading that blocked would wait for ever
        for mode in ("r", "rw"):
            with self.assertRaisesRegex(mmapbloom.MmapBloomError, "not a regular file"):
                mmapbloom.open(self.path("fifo"), mode)

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            mmapbloom.open(self.path("absent.bloom"))


if __name__ == "__main__":
    unittest.main()
