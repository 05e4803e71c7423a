"""Helpers shared by the tests: paths, temporary directories, golden files."""

import os
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(REPO, "testdata", "py")
GOLDEN_ADDED = 400  # the first queries of queries.hex are the added keys

try:
    import xxhash  # noqa: F401
    HAVE_XXHASH = True
except ImportError:
    HAVE_XXHASH = False


def require_xxhash(test):
    """Skip without python-xxhash, or fail with CI=true (the rules: CI must have it)."""
    if HAVE_XXHASH:
        return test
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI=true but python3-xxhash is missing (apt-get install python3-xxhash)")
    return unittest.skip("python-xxhash not installed (apt-get install python3-xxhash)")(test)


def golden_queries():
    with open(os.path.join(GOLDEN, "queries.hex")) as f:
        return [bytes.fromhex(line.strip()) for line in f]


def golden_cases():
    return sorted(name[:-len(".bloom")] for name in os.listdir(GOLDEN) if name.endswith(".bloom"))


class TempDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory in self.dir."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name="f.bloom"):
        return os.path.join(self.dir, name)
