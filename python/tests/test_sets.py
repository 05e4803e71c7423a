"""Filter sets from Python: scalable growth and its sizing (Go's
math.Pow bit for bit), windowed rotation on an injected clock,
open_or_create on a set's directory, refusals."""

import math
import os
import shutil

import mmapbloom
from mmapbloom import hashing
from mmapbloom import set_manifest as sm

from .common import TempDirTest, require_xxhash

HOUR = 3600 * 10**9


def differ(got, want):
    """The first 10 indexes where two lists of answers differ, and their
    lengths when those do: assertEqual's diff of two long lists that differ
    in many places takes minutes."""
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w][:10]
    return bad + ([(len(got), len(want))] if len(got) != len(want) else [])


@require_xxhash
class SetTest(TempDirTest):
    def test_scalable_grows(self):
        with mmapbloom.create(self.path("s.bfset"), 1000, 0.01, expansion=2) as s:
            self.assertEqual(s.add_batch([f"k{i}" for i in range(7000)]).count(True) < 70, True)
            self.assertEqual([(l["n"], l["p"]) for l in s.layers], [(1000, 0.005), (2000, 0.0025), (4000, 0.00125)])
            self.assertTrue(all(f"k{i}" in s for i in range(7000)))
            fp = sum(f"absent{i}" in s for i in range(20000)) / 20000
            self.assertLess(fp, 0.01)
        with mmapbloom.open(self.path("s.bfset")) as r:
            self.assertIn("k1", r)
            with self.assertRaises(mmapbloom.ReadOnly):
                r.add("x")

    def test_fused_probe_is_per_layer(self):
        # 4 blocked layers of k 8, 9, 10, 11: in, test_batch and add_batch,
        # which read the layers' probes byte by byte, answer as each layer
        # does alone (Filter._test_hash) for present and absent keys
        with mmapbloom.create(self.path("s.bfset"), 1000, 0.01, expansion=1) as s:
            s.add_batch([f"k{i}" for i in range(3500)])
            layers = s._current().layers
            self.assertEqual([f.k for f in layers], [8, 9, 10, 11])
            seed = s.manifest["seed"]
            keys = [f"k{i}".encode() for i in range(3500)] + [f"absent{i}".encode() for i in range(20000)]
            want = [any(f._test_hash(hashing.xxhash.xxh3_64_intdigest(key, seed)) for f in layers) for key in keys]
            self.assertTrue(all(want[:3500]))
            self.assertGreater(want[3500:].count(True), 0, "some false positives, in some layer")
            self.assertEqual(differ([key in s for key in keys], want), [])
            self.assertEqual(differ(s.test_batch(keys), want), [])
            self.assertEqual(differ(s.add_batch(keys[:3500]), want[:3500]), [])

    def test_fused_probe_is_per_layer_windowed(self):
        # a windowed set of keep 4 whose layers grow within a window (so of
        # several k): in and test_batch answer as the live layers do alone,
        # with all 4 windows live and after the oldest expired unrotated;
        # add_batch answers and adds as add, key by key, on a copy
        t = [10**18]
        path, copy = self.path("w.bfset"), self.path("copy.bfset")
        with mmapbloom.create(path, 1000, 0.01, window=3600, keep=4, expansion=1, now=lambda: t[0]) as s:
            sizes = [1500, 1500, 500, 500]
            for w, n in enumerate(sizes):
                t[0] = 10**18 + w * HOUR
                s.add_batch([f"w{w}k{i}" for i in range(n)])
            self.assertEqual([l["window"] for l in s.layers], [0, 0, 1, 1, 2, 3])
            layers = s._current().layers
            self.assertEqual(sorted({f.k for f in layers}), [10, 11])
            seed = s.manifest["seed"]
            present = [f"w{w}k{i}".encode() for w, n in enumerate(sizes) for i in range(n)]
            keys = present + [f"absent{i}".encode() for i in range(20000)]
            for hour, live in ((3, layers), (4, layers[2:])):
                t[0] = 10**18 + hour * HOUR + HOUR // 2
                want = [any(f._test_hash(hashing.xxhash.xxh3_64_intdigest(key, seed)) for f in live) for key in keys]
                self.assertGreater(want[len(present):].count(True), 0, "some false positives, in some layer")
                self.assertEqual(want[:1500].count(True) < 100, hour == 4, "window 0 expired at hour 4 alone")
                self.assertEqual(differ([key in s for key in keys], want), [])
                self.assertEqual(differ(s.test_batch(keys), want), [])
        shutil.copytree(path, copy)  # closed: no adds pending, the copy counts as the set
        with mmapbloom.open(path, "rw", now=lambda: t[0]) as s, mmapbloom.open(copy, "rw", now=lambda: t[0]) as c:
            for hour, always, part in ((3, False, keys[::4]), (3, True, keys[1::4]), (4, True, keys[2::4]),
                                       (4, False, keys[3::4])):
                t[0] = 10**18 + hour * HOUR + HOUR // 2
                self.assertEqual(differ(s.add_batch(part, always), [c.add(key, always) for key in part]), [])
                self.assertEqual(s.layers, c.layers)
            self.assertEqual([l["window"] for l in s.layers][:4], [1, 1, 2, 3], "rotated at hour 4")

    def test_sizing_is_gos(self):
        # r = 0.9: 0.9**i by Go's squarings; values printed by Go's scalableLayer
        # for n 1000, p 0.01, s 4, r 0.9 (math.Pow), layers 0..5.
        got = [sm.scalable_layer(1000, 0.01, 4, 0.9, i) for i in range(6)]
        self.assertEqual([n for n, _ in got], [1000 * 4 ** i for i in range(6)])
        for i, (_, p) in enumerate(got):
            self.assertAlmostEqual(p, 0.01 * (1 - 0.9) * 0.9 ** i, delta=1e-18)
        self.assertEqual(sm.go_pow(0.5, 10), 0.5 ** 10)
        self.assertEqual(sm.scalable_layer(10, 0.01, 1, 0.5, 200)[1], 1e-19, "the rate floor")
        self.assertTrue(math.isfinite(sm.go_pow(0.9, 5000)))

    def test_windowed_rotates(self):
        t = [10**18]
        path = self.path("w.bfset")
        with mmapbloom.create(path, 100, 0.01, window=3600, keep=2, now=lambda: t[0]) as s:
            s.add("day0")
            t[0] += HOUR
            s.add("day1")
            self.assertEqual([l["window"] for l in s.layers], [0, 1])
            self.assertIn("day0", s)
            t[0] += HOUR
            self.assertNotIn("day0", s, "expired before any rotation: readers skip it")
            s.add("day2")
            self.assertEqual([l["window"] for l in s.layers], [1, 2])
            self.assertFalse(os.path.exists(os.path.join(path, "L000000.bloom")), "dropped layer unlinked")
            self.assertEqual(s.add("day1"), True)
            self.assertEqual(s.add("day1", always=True), True, "Go's Add: re-added to the current window")

    def test_open_or_create(self):
        path = self.path("o.bfset")
        with mmapbloom.open_or_create(path, 100, 0.01, window=60, keep=3) as s:
            s.add("a")
        with mmapbloom.open_or_create(path) as s:
            self.assertIn("a", s)
            self.assertEqual(s.manifest["keep"], 3)
        with self.assertRaisesRegex(mmapbloom.Mismatch, "keep 4 given, but the existing filter has keep 3"):
            mmapbloom.open_or_create(path, keep=4)
        with self.assertRaisesRegex(mmapbloom.InvalidArgument, "name it .*x.bfset"):
            mmapbloom.create(self.path("x.bloom"), 100, 0.01, window=60)
        with self.assertRaises(mmapbloom.FilterExists):
            mmapbloom.create(path, 100, 0.01)
        os.mkdir(self.path("empty"))
        with self.assertRaises(mmapbloom.BadSet):
            mmapbloom.open(self.path("empty"))

    def test_clear(self):
        # clear empties every layer of a grown set and keeps its layers;
        # refused (InUse), clearing nothing, while another handle is open
        path = self.path("s.bfset")
        with mmapbloom.create(path, 1000, 0.01, expansion=2) as s:
            s.add_batch([f"k{i}" for i in range(3500)])
            self.assertEqual(len(s.layers), 3)
            with mmapbloom.open(path) as other:
                self.assertIn("k1", other)
                with self.assertRaisesRegex(mmapbloom.InUse, "clear"):
                    s.clear()
            self.assertTrue(all(f"k{i}" in s for i in range(3500)), "a refused clear keeps every layer's bits")
            s.clear()
            self.assertEqual((len(s), len(s.layers)), (0, 3))
            self.assertEqual(sum(f"k{i}" in s for i in range(3500)), 0)
            self.assertFalse(s.add("k1"), "new again")
            self.assertEqual(len(s.layers), 3, "the cleared set is not full: no layer added")
        with mmapbloom.open(path) as r:
            self.assertEqual((len(r), "k1" in r, "k2" in r), (1, True, False))
            with self.assertRaises(mmapbloom.ReadOnly):
                r.clear()
