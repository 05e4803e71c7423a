"""open_or_create on files: a create race among processes, explicit
arguments checked against the header, the rest taken from it; and the
install hint of a missing dependency."""

import multiprocessing
import os
import sys
import unittest
from unittest import mock

import mmapbloom
from mmapbloom import _install

from .common import TempDirTest, require_xxhash


def _worker(path, keys, queue):
    with mmapbloom.open_or_create(path, 10_000, 1e-6) as f:
        f.add_batch(keys)
        queue.put(f.seed)


@require_xxhash
class OpenOrCreateTest(TempDirTest):
    def test_race(self):
        path = self.path()
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        procs = [ctx.Process(target=_worker, args=(path, [f"{w}-{i}" for i in range(200)], queue)) for w in range(6)]
        for p in procs:
            p.start()
        seeds = {queue.get(timeout=120) for _ in procs}
        for p in procs:
            p.join(120)
            self.assertEqual(p.exitcode, 0)
        self.assertEqual(len(seeds), 1, "every worker opened the one file the winner made")
        with mmapbloom.open(path) as f:
            self.assertTrue(all(f"{w}-{i}" in f for w in range(6) for i in range(200)))
            self.assertEqual(len(f), 1200)

    def test_arguments(self):
        path = self.path()
        mmapbloom.create(path, 1000, 0.01, seed=7).close()
        with mmapbloom.open_or_create(path) as f:  # everything from the file
            self.assertEqual((f.n, f.p, f.seed), (1000, 0.01, 7))
        with mmapbloom.open_or_create(path, 1000, 0.01, layout="blocked512", seed=7) as f:
            self.assertTrue(f.writable)
        cases = [({"capacity": 2000}, "capacity 2000 given, but the existing filter has capacity 1000"),
                 ({"error_rate": 0.001}, "error_rate 0.001 given, but the existing filter has error_rate 0.01"),
                 ({"layout": "classic"}, "layout classic given, but the existing filter has layout blocked512"),
                 ({"seed": 8}, "seed 8 given, but the existing filter has seed 7")]
        for kw, msg in cases:
            with self.subTest(kw=kw):
                with self.assertRaises(mmapbloom.Mismatch) as cm:
                    mmapbloom.open_or_create(path, **kw)
                self.assertIn(msg, str(cm.exception))

    def test_missing_needs_sizes(self):
        with self.assertRaisesRegex(mmapbloom.InvalidArgument, "give capacity and error_rate"):
            mmapbloom.open_or_create(self.path(), 1000)
        self.assertFalse(os.path.exists(self.path()))


class InstallHintTest(unittest.TestCase):
    def test_hint(self):
        cases = [("/usr/bin/python3", "/usr", "/usr", True, "apt-get install python3-xxhash"),
                 ("/v/bin/python", "/v", "/usr", True, "/v/bin/python -m pip install xxhash (or apt-get"),
                 ("/opt/py/bin/python3", "/opt/py", "/opt/py", True, "/opt/py/bin/python3 -m pip install xxhash (this"),
                 ("/usr/bin/python3", "/usr", "/usr", False, "/usr/bin/python3 -m pip install xxhash")]
        for exe, prefix, base, debian, want in cases:
            with self.subTest(exe=exe), mock.patch.object(sys, "executable", exe), \
                    mock.patch.object(sys, "prefix", prefix), mock.patch.object(sys, "base_prefix", base), \
                    mock.patch.object(os.path, "exists", lambda p: debian):
                self.assertTrue(_install.hint("xxhash", "python3-xxhash").startswith(want),
                                _install.hint("xxhash", "python3-xxhash"))
