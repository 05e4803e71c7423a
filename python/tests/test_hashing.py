"""The vectorised hash code against the schemes written out plainly, as
FORMAT.md and the lead's decision 2 state them (the golden files check
them against Go)."""

import random
import unittest

from mmapbloom import hashing
from mmapbloom.hashing import MASK32, MASK64

from .common import require_xxhash


def remix_spec(key, m, k, seed):
    """xxh3-remix as decision 2 writes it."""
    v = hashing.xxhash.xxh3_128_intdigest(key, seed)
    lo, step = v & MASK64, (v >> 64) | 1
    out = []
    for i in range(k):
        x = (lo + i * step) & MASK64
        x ^= x >> 33
        x = (x * 0xFF51AFD7ED558CCD) & MASK64
        x ^= x >> 33
        x = (x * 0xC4CEB9FE1A85EC53) & MASK64
        x ^= x >> 33
        out.append((x * m) >> 64)
    return out


def blocked_spec(key, m, k, seed):
    """xxh3-blocked as mmapbloom/blocked.go writes it: (block, mask of the probes)."""
    h = hashing.xxhash.xxh3_64_intdigest(key, seed)
    g, mask, phi = h & MASK32, 0, 1
    for _ in range(k):
        phi = (phi * 0x9E3779B9) & MASK32
        mask |= 1 << (((g * phi) & MASK32) >> 23)
    return (h * (m // 512)) >> 64, mask


@require_xxhash
class HashingTest(unittest.TestCase):
    SHAPES = [(1, 1, 0), (1000, 7, 1), (999_983, 20, 12345), (1 << 50, 64, (1 << 64) - 1), ((1 << 50) - 1, 30, 1 << 63)]

    def keys(self):
        rng = random.Random(7)
        return [rng.randbytes(rng.randint(0, 64)) for _ in range(2000)]

    def test_remix(self):
        for m, k, seed in self.SHAPES:
            locate = hashing.locator(5, m, k, seed)
            for key in self.keys():
                self.assertEqual(locate(key), remix_spec(key, m, k, seed))

    def test_blocked(self):
        for m, k, seed in [(512, 1, 0), (512 * 1000, 7, 3), (512 * 12345, 64, (1 << 64) - 1)]:
            probe = hashing.blocked_probe_of_hash(m, k)
            locate = hashing.locator(4, m, k, seed)
            for key in self.keys():
                block, mask = blocked_spec(key, m, k, seed)
                self.assertEqual(probe(hashing.xxhash.xxh3_64_intdigest(key, seed)), (block * 64, mask))
                self.assertEqual({p - block * 512 for p in locate(key)}, {i for i in range(512) if mask >> i & 1})

    def test_blocked_lanes(self):
        # probe j read one byte at a time is locate's j-th position in the block
        for m, k, seed in [(512, 1, 0), (512 * 1000, 7, 3), (512 * 12345, 64, (1 << 64) - 1)]:
            lanes = hashing.blocked_lanes_of_hash(k)
            locate = hashing.locator(4, m, k, seed)
            for key in self.keys():
                got = [8 * hashing.LANE_BYTE[v] + hashing.LANE_BYTE_BIT[v].bit_length() - 1
                       for v in lanes(hashing.xxhash.xxh3_64_intdigest(key, seed))]
                self.assertEqual(got, [p % 512 for p in locate(key)])

    def test_lcg_seeds(self):
        self.assertEqual(hashing.lcg_seeds(hashing.DOCUMENT_SEED, 3),
                         [314159265, (1664525 * 314159265 + 1013904223) & MASK32,
                          (1664525 * ((1664525 * 314159265 + 1013904223) & MASK32) + 1013904223) & MASK32])
