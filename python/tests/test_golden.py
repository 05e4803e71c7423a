"""Python against the files, answers and positions the Go library wrote
(testdata/py, kept in sync by Go's TestPythonGolden)."""

import os
import shutil
import unittest

import mmapbloom
from mmapbloom import header, sizing
from mmapbloom.create import _defaults, _size

from .common import GOLDEN, GOLDEN_ADDED, TempDirTest, golden_cases, golden_queries, require_xxhash


@require_xxhash
class GoldenTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.queries = golden_queries()
        self.cases = golden_cases()
        self.assertGreaterEqual(len(self.cases), 5, "golden filters missing")

    def expected(self, case):
        with open(os.path.join(GOLDEN, case + ".answers")) as f:
            answers = [c == "1" for c in f.read().strip()]
        with open(os.path.join(GOLDEN, case + ".locations")) as f:
            locations = [[int(x) for x in line.split()] for line in f]
        return answers, locations

    def test_answers_and_locations(self):
        """Every query answers as Go answered, false positives included, by
        `in`, test_batch and str keys; positions equal Go's Locations."""
        for case in self.cases:
            with self.subTest(case=case), mmapbloom.open(os.path.join(GOLDEN, case + ".bloom")) as f:
                answers, locations = self.expected(case)
                self.assertEqual(len(answers), len(self.queries))
                got = [q in f for q in self.queries]
                self.assertEqual(got, answers)
                self.assertEqual(f.test_batch(self.queries), answers)
                self.assertTrue(all(got[:GOLDEN_ADDED]), "an added key tests absent")
                self.assertGreater(sum(got[GOLDEN_ADDED:]), 0, "no false positive to compare")
                for q, want in zip(self.queries, locations):
                    self.assertEqual(f.locations(q), want, q)
                for q in self.queries[:GOLDEN_ADDED]:
                    try:
                        s = q.decode("utf-8")
                    except UnicodeDecodeError:
                        continue
                    self.assertIn(s, f)
                    self.assertEqual(f.locations(s), f.locations(q))
                self.assertEqual(len(f), f.header.count)

    def test_adds_set_the_same_bits(self):
        """A copy of each golden filter cleared and refilled by Python, one
        key at a time and by batch, is byte-identical to Go's file except
        the count, which counts the adds that set a new bit (v1.1: every
        add) as Go's did."""
        for case in self.cases:
            for batch in (False, True):
                with self.subTest(case=case, batch=batch):
                    path = self.path(case + ".bloom")
                    shutil.copy(os.path.join(GOLDEN, case + ".bloom"), path)
                    with mmapbloom.open(path, "rw") as f:
                        go_count = len(f)
                        f.clear()
                        self.assertEqual(len(f), 0)
                        added = self.queries[:GOLDEN_ADDED]
                        new = (f.add_batch(added) if batch else [f.add(k) for k in added]).count(False)
                        counted = len(added) if f.header.version == 1 else new  # v1.1 counts add calls
                        self.assertEqual(len(f), counted)
                        self.assertEqual(counted, go_count, "Go counted its adds alike")
                        self.assertGreater(new, GOLDEN_ADDED * 0.95)
                    with open(path, "rb") as a, open(os.path.join(GOLDEN, case + ".bloom"), "rb") as b:
                        got, want = a.read(), b.read()
                    self.assertEqual(got[:8], want[:8])
                    self.assertEqual(got[16:], want[16:])


class SizingTest(unittest.TestCase):
    """Python sizes every rule, and picks Create's default layout, as Go
    does (sizing.txt, written by Go)."""

    def check_default(self, n, p, want):
        layout, scheme, size_for = _defaults(2, 0, 0, n, p)
        if want == ["error"]:
            with self.assertRaises(mmapbloom.MmapBloomError):
                _size(2, layout, scheme, False, n, size_for)
            return
        self.assertEqual(header.LAYOUT_NAMES[layout], want[0])
        self.assertEqual(_size(2, layout, scheme, False, n, size_for), (int(want[1]), int(want[2])))

    RULES = {
        "classic": sizing.optimal_classic,
        "blocked": sizing.optimal_blocked,
        "v1": sizing.size_v1,
        "seeds": lambda n, p: sizing.size_seeds(n, p, False),
        "seeds-prime": lambda n, p: sizing.size_seeds(n, p, True),
    }

    def test_sizing_table(self):
        with open(os.path.join(GOLDEN, "sizing.txt")) as f:
            lines = [line.split() for line in f]
        self.assertGreater(len(lines), 300)
        for rule, n, p, *want in lines:
            with self.subTest(rule=rule, n=n, p=p):
                if rule == "default":
                    self.check_default(int(n), float(p), want)
                    continue
                size = self.RULES[rule]
                if want == ["error"]:
                    with self.assertRaises(mmapbloom.MmapBloomError):
                        size(int(n), float(p))
                else:
                    self.assertEqual(size(int(n), float(p)), (int(want[0]), int(want[1])))


if __name__ == "__main__":
    unittest.main()
