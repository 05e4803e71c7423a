"""Key to bit positions, for every hash scheme of format/FORMAT.md.

The same positions as the Go library's locator (mmapbloom/internal/hashing: locate.go,
murmur.go, blocked.go) for every scheme; tests compare them with positions
Go wrote (testdata/py). MurmurHash64A is pure Python; the xxh3 schemes use
python-xxhash (Debian python3-xxhash), whose seeded xxh3 equals
github.com/zeebo/xxh3.
"""

import operator
import struct
from functools import reduce
from typing import Any

from . import _install, errors
from .header import (SCHEME_MURMUR_DOUBLE, SCHEME_MURMUR_DOUBLE_V1, SCHEME_MURMUR_SEEDS,
                     SCHEME_XXH3_BLOCKED, SCHEME_XXH3_REMIX)

xxhash: Any
try:
    import xxhash
except ImportError:  # a required dependency, but the murmur schemes work without it
    xxhash = None

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
_M = 0xC6A4A7935BD1E995  # MurmurHash64A's multiplier
_R = 47

# Document 000's LCG for the k seeds of murmur2-seeds.
DOCUMENT_SEED = 314159265
_LCG_A, _LCG_C = 1664525, 1013904223

# blocked512: probe j of in-block hash g is bit ((g * PHI_POW[j]) mod 2^32) >> 23.
BLOCK_BITS = 512
_PHI32 = 0x9E3779B9
PHI_POW = tuple(pow(_PHI32, j + 1, 1 << 32) for j in range(64))

_FMIX_C1, _FMIX_C2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53


def murmur64a(key, seed):
    """Austin Appleby's MurmurHash64A of key (bytes) with a 64-bit seed,
    8-byte blocks read little-endian (Go: mmapbloom.MurmurHash64A)."""
    n = len(key)
    m = _M
    h = (seed ^ (n * m)) & MASK64
    blocks = n >> 3
    if blocks:
        for k in struct.unpack_from(f"<{blocks}Q", key):
            k = (k * m) & MASK64
            k ^= k >> _R
            h ^= (k * m) & MASK64
            h = (h * m) & MASK64
    if n & 7:
        h ^= int.from_bytes(key[blocks << 3:], "little")
        h = (h * m) & MASK64
    h ^= h >> _R
    h = (h * m) & MASK64
    return h ^ (h >> _R)


def key_bytes(key):
    """str keys are UTF-8; bytes, bytearray and memoryview are taken as they are."""
    if isinstance(key, bytes):
        return key
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, (bytearray, memoryview)):
        return bytes(key)
    raise TypeError(f"mmapbloom keys are str or bytes, not {type(key).__name__}")


def need_xxhash(scheme):
    """Raise when scheme needs python-xxhash and it is not installed."""
    if xxhash is None and scheme in (SCHEME_XXH3_BLOCKED, SCHEME_XXH3_REMIX):
        raise errors.MissingDependency(
            "this filter's hash scheme needs the xxhash module, a dependency of mmapbloom: "
            + _install.hint("xxhash", "python3-xxhash"))


# The in-block probes of g, all k at once: g * _packed(k) holds g * phi^(j+1)
# in 64-bit lane j; bytes 2..3 of a lane are bits 16..31 of the product mod
# 2^32, and their top 9 bits (>> 7) are the probe's bit in the block.
_BIT = [1 << i for i in range(BLOCK_BITS)]
_LANE_BIT = [_BIT[v >> 7] for v in range(1 << 16)]


def _packed(k):
    return sum(p << (64 * j) for j, p in enumerate(PHI_POW[:k]))


def blocked_probe_of_hash(m, k):
    """Return a function h -> (byte offset of the block in the array,
    512-bit mask of the k probes: bit i is bit i of the block) for a key
    whose xxh3-64 hash is h."""
    blocks, packed, n = m // BLOCK_BITS, _packed(k), 8 * k
    lanes = struct.Struct("<" + "2xH4x" * k).unpack
    bit, or_ = _LANE_BIT.__getitem__, operator.or_

    def probe(h):
        return ((h * blocks) >> 64) << 6, reduce(or_, map(bit, lanes(((h & MASK32) * packed).to_bytes(n, "little"))))
    return probe


# A lane value v (bytes 2..3 of a lane, as above) probes bit v >> 7 of the
# block, which is bit LANE_BYTE_BIT[v] of byte LANE_BYTE[v] of its 64 bytes.
LANE_BYTE = [v >> 10 for v in range(1 << 16)]
LANE_BYTE_BIT = [1 << ((v >> 7) & 7) for v in range(1 << 16)]


def blocked_lanes_of_hash(k):
    """Return a function h -> the k in-block probes, as lane values, of the
    key whose xxh3-64 hash is h: probe j is bit LANE_BYTE_BIT[v] of byte
    LANE_BYTE[v] of the block for v the j-th value, and a blocked layer of
    k' <= k probes tests the first k', so the layers of a filter set, which
    share the key's hash, pay one multiply for all their probes and can
    stop at a layer's first clear bit."""
    packed, n = _packed(k), 8 * k
    lanes = struct.Struct("<" + "2xH4x" * k).unpack
    return lambda h: lanes(((h & MASK32) * packed).to_bytes(n, "little"))


def locator(scheme, m, k, seed):
    """Return a function key (bytes) -> list of the k bit positions in [0, m),
    in the scheme's order (Go: Filter.Locations)."""
    need_xxhash(scheme)
    if scheme == SCHEME_MURMUR_DOUBLE_V1:
        return _double_v1(m, k, seed)
    if scheme == SCHEME_MURMUR_DOUBLE:
        return _double(m, k, seed)
    if scheme == SCHEME_MURMUR_SEEDS:
        return _seeds(m, k, seed)
    if scheme == SCHEME_XXH3_BLOCKED:
        return _blocked(m, k, seed)
    if scheme == SCHEME_XXH3_REMIX:
        return _remix(m, k, seed)
    raise errors.UnknownScheme(f"unknown hash scheme id {scheme}")


def _mix_seed(h):
    return ((h >> 32) ^ h) & MASK32


def _double_v1(m, k, seed):
    def locate(key):
        h1 = murmur64a(key, seed)
        h2 = murmur64a(key, _mix_seed(h1))
        return [((h1 + i * h2) & MASK64) % m for i in range(k)]
    return locate


def _double(m, k, seed):
    rng = range(k)

    def locate(key):
        h1 = murmur64a(key, seed)
        h2 = murmur64a(key, _mix_seed(h1))
        a = (h1 * m) >> 64
        b = 1 + ((h2 * (m - 1)) >> 64) if m > 1 else 0
        out = []
        for _ in rng:
            out.append(a)
            a += b
            if a >= m:
                a -= m
        return out
    return locate


def lcg_seeds(seed, k):
    """The k seeds of murmur2-seeds: x0 = the low 32 bits of seed, x(i+1) = 1664525 x(i) + 1013904223 mod 2^32."""
    x, out = seed & MASK32, []
    for _ in range(k):
        out.append(x)
        x = (_LCG_A * x + _LCG_C) & MASK32
    return out


def _seeds(m, k, seed):
    seeds = lcg_seeds(seed, k)
    return lambda key: [murmur64a(key, s) % m for s in seeds]


def _blocked(m, k, seed):
    xxh, blocks = xxhash.xxh3_64_intdigest, m // BLOCK_BITS
    pows = PHI_POW[:k]

    def locate(key):
        h = xxh(key, seed)
        base, g = ((h * blocks) >> 64) * BLOCK_BITS, h & MASK32
        return [base + (((g * p) & MASK32) >> 23) for p in pows]
    return locate


def _remix(m, k, seed):
    # All k positions at once: lane i (128 bits wide, so that products do
    # not carry into the next lane) of one integer holds x_i = lo + i*step
    # mod 2^64; murmur3's fmix64 runs on every lane together, then lane i's
    # high word of x_i * m is position i.
    xxh = xxhash.xxh3_128_intdigest
    ones = sum(1 << (128 * i) for i in range(k))
    index = sum(i << (128 * i) for i in range(k))
    low64, low31 = MASK64 * ones, ((1 << 31) - 1) * ones
    high_words = struct.Struct("<" + "8xQ" * k).unpack
    n = 16 * k

    def locate(key):
        v = xxh(key, seed)
        x = ((v & MASK64) * ones + ((v >> 64) | 1) * index) & low64
        x ^= (x >> 33) & low31
        x = (x * _FMIX_C1) & low64
        x ^= (x >> 33) & low31
        x = (x * _FMIX_C2) & low64
        x ^= (x >> 33) & low31
        return list(high_words((x * m).to_bytes(n, "little")))
    return locate
