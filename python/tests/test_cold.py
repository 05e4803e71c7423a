"""Cold batches (mmapbloom._cold): the residency decision, the residency
sample, the pages a batch requests ahead (of a filter, of a set's cold
layers), and the batch calls with their pages requested ahead giving the
answers and the file of the plain path."""

import contextlib
import mmap
import os
import shutil
import unittest
from unittest import mock

import mmapbloom
from mmapbloom import _cold
from mmapbloom.header import HEADER_SIZE

from .common import TempDirTest, require_xxhash
from .test_filter import SHAPES
from .test_sets import HOUR


class ResidencyTest(unittest.TestCase):
    def test_decision(self):
        # (keys in the batch, what a sample finds, sampled, cold)
        cases = {
            "cold until resident": [
                (0, False, False, False),  # nothing to charge: the start (warm) holds
                (100, False, True, True),
                (_cold.COLD_RECHECK, True, False, True),  # the sampling batch's own keys are not charged
                (1, True, True, False),
                (_cold.RECHECK, False, False, False),
                (5, False, True, True),
            ],
            "warm from the start": [(3, True, True, False), (_cold.COLD_RECHECK + 1, False, False, False)],
            "a batch larger than the budget": [(4 * _cold.RECHECK, False, True, True), (1, True, False, True)],
        }
        for name, batches in cases.items():
            with self.subTest(name):
                r = _cold.Residency()
                for i, (n, res, want_sampled, want_cold) in enumerate(batches):
                    sampled = []
                    cold = r.cold_for(n, lambda: sampled.append(1) or res)
                    self.assertEqual(bool(sampled), want_sampled, f"batch {i} sampled")
                    self.assertEqual(cold, want_cold, f"batch {i} cold")


class ResidentTest(TempDirTest):
    def test_sample(self):
        path = self.path("r.bin")
        with open(path, "wb") as w:
            w.write(b"\1" * (4 << 20))
        fd = os.open(path, os.O_RDONLY)
        try:
            self.assertTrue(_cold.resident(fd, 4 << 20), "a file just written")
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if _cold.resident(fd, 4 << 20):
                self.skipTest("the page cache keeps the file (tmpfs?)")
            self.assertTrue(_cold.resident(fd, 0), "nothing to sample")
        finally:
            os.close(fd)


@contextlib.contextmanager
def observed(layers, cold):
    """_cold's residency sample answering cold for the files of
    layers[i], i in cold, and in memory for the others; yields a dict
    whose "sampled" lists the layer index of each sample taken and whose
    "requested" holds a (layer index, page) pair for each page requested
    ahead (_cold.will_need)."""
    fds = {f._fd: i for i, f in enumerate(layers)}
    mms = {id(f._mm): i for i, f in enumerate(layers)}
    log = {"sampled": [], "requested": set()}

    def resident(fd, size):
        log["sampled"].append(fds.get(fd))  # None: a layer opened since (in memory)
        return fds.get(fd) not in cold

    def will_need(mm, off):
        log["requested"].add((mms.get(id(mm)), off // mmap.PAGESIZE))
    with mock.patch.object(_cold, "resident", resident), mock.patch.object(_cold, "will_need", will_need):
        yield log


def pages(layers, cold, keys):
    """The (layer index, page) pairs the probes of keys read in the
    layers[i], i in cold: what a batch of keys requests ahead."""
    return {(i, (HEADER_SIZE + bit // 8) // mmap.PAGESIZE)
            for i in cold for key in keys for bit in layers[i].locations(key)}


@require_xxhash
class ColdBatchTest(TempDirTest):
    def test_requests_pages_of_keys(self):
        # a cold filter's batch requests the pages its keys' probes read (a
        # few of the filter's pages), a warm one's none
        keys = [f"https://example.com/{i}".encode() for i in range(20)]
        for i, shape in enumerate(SHAPES):
            with self.subTest(**shape):
                path = self.path(f"{i}.bloom")
                mmapbloom.create(path, 500_000, 0.01, **shape).close()
                for cold in ({0}, set()):
                    with mmapbloom.open(path, "rw") as f, observed([f], cold) as log:
                        want = pages([f], cold, keys)
                        f.test_batch(keys)
                        self.assertEqual(log["requested"], want)
                        self.assertEqual(log["sampled"], [0])
                        f.add_batch(keys)
                        self.assertEqual(log["sampled"], [0], "one sample for both batches")
                        self.assertEqual(log["requested"], want, "the add batch's pages too, and no others")
                self.assertLess(len(pages([f], {0}, keys)), (HEADER_SIZE + f.m // 8) // mmap.PAGESIZE, "not every page")

    def test_matches_plain(self):
        added = [f"https://example.com/{i}".encode() for i in range(3000)]
        added += added[:100]  # repeats inside one batch
        queries = [f"https://example.org/{i}".encode() for i in range(3000)] + added
        for i, shape in enumerate(SHAPES):
            with self.subTest(**shape):
                path, copy = self.path(f"{i}.bloom"), self.path(f"{i}-cold.bloom")
                mmapbloom.create(path, 2000, 0.01, **shape).close()
                shutil.copyfile(path, copy)
                with mmapbloom.open(path, "rw") as warm, mmapbloom.open(copy, "rw") as cold:
                    for f, is_cold in ((warm, False), (cold, True)):
                        f._residency.budget, f._residency.cold = 1 << 62, is_cold
                    self.assertEqual(warm.add_batch(added), cold.add_batch(added))
                    want, got = warm.test_batch(queries), cold.test_batch(queries)
                    self.assertEqual(want, got)
                    self.assertIn(False, got)
                    self.assertEqual(len(warm), len(cold))
                with open(path, "rb") as a, open(copy, "rb") as b:
                    self.assertEqual(a.read(), b.read())


@require_xxhash
class ColdSetTest(TempDirTest):
    """A set's batch calls sample each live layer's file on its own and
    request, ahead of the probes, the pages their keys read in the live
    layers found cold, and none in the warm ones nor in an expired layer;
    they answer as the single-key calls."""

    def check(self, path, now, keys):
        """For each choice of cold layers, on copies of the set at path
        opened fresh (so that their first batch samples): test_batch and
        add_batch request the pages of their keys in the cold live layers
        alone; test_batch answers as `in`, add_batch as add on another
        copy."""
        with mmapbloom.open(path, now=now) as s:
            v = s._current()
            live = set(range(v.live_from(now()), len(v.layers)))
            want = [key in s for key in keys]
        self.assertIn(True, want)
        self.assertIn(False, want)
        for i, cold in enumerate(({min(live)}, {max(live)}, set(range(len(v.layers))), set())):
            with self.subTest(cold=sorted(cold)):
                work, copy = f"{path}-{i}.bfset", f"{path}-{i}-copy.bfset"
                shutil.copytree(path, work)
                shutil.copytree(path, copy)
                with mmapbloom.open(work, now=now) as s:
                    layers = s._current().layers
                    with observed(layers, cold) as log:
                        self.assertEqual(s.test_batch(keys), want)
                    self.assertEqual(log["requested"], pages(layers, cold & live, keys))
                    self.assertEqual(sorted(log["sampled"]), sorted(live), "each live layer sampled once")
                with mmapbloom.open(work, "rw", now=now) as s, mmapbloom.open(copy, "rw", now=now) as c:
                    layers = s._current().layers
                    with observed(layers, cold) as log:
                        got = s.add_batch(keys)
                    self.assertEqual(got, [c.add(key) for key in keys])
                    self.assertEqual(s.layers, c.layers)
                    self.assertEqual(log["requested"], pages(layers, cold & live, keys))

    def test_scalable(self):
        for layout in ("blocked512", "classic"):  # classic: each layer hashes the key itself
            with self.subTest(layout=layout):
                path = self.path(f"{layout}.bfset")
                with mmapbloom.create(path, 20_000, 0.01, expansion=2, layout=layout) as s:
                    s.update(b"k%d" % i for i in range(24_000))
                    self.assertEqual(len(s.layers), 2)
                    self.assertEqual(s._current().hashable, layout == "blocked512")
                self.check(path, lambda: 0,
                           [b"k%d" % i for i in range(0, 24_000, 800)] + [b"new%d" % i for i in range(30)])

    def test_windowed(self):
        # windows 0-3 of keep 3: window 0 dropped at window 3's rotation;
        # at hour 4 window 1's layer expired but, unrotated, still there
        # (add_batch rotates: window 4's new layer, in memory)
        t = [10**18]
        path = self.path("w.bfset")
        with mmapbloom.create(path, 50_000, 0.01, window=3600, keep=3, now=lambda: t[0]) as s:
            for w in range(4):
                t[0] = 10**18 + w * HOUR
                s.update(b"w%dk%d" % (w, i) for i in range(5000))
            self.assertEqual([l["window"] for l in s.layers], [1, 2, 3])
        t[0] = 10**18 + 4 * HOUR + HOUR // 2
        self.check(path, lambda: t[0],
                   [b"w%dk%d" % (w, i) for w in range(4) for i in range(0, 5000, 500)] + [b"new%d" % i for i in range(30)])
