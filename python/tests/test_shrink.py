"""A file shrunk or rewritten under a live mapping: the next call raises
FileChanged instead of killing the interpreter with SIGBUS."""

import itertools
import os
import shutil

import mmapbloom

from .common import TempDirTest, require_xxhash

CALLS = {
    "in": lambda f: "key" in f,
    "add": lambda f: f.add("key"),
    "test_batch": lambda f: f.test_batch(["key", "other"]),
    "add_batch": lambda f: f.add_batch(["key", "other"]),
    "len": len,
    "approx_len": lambda f: f.approx_len(),
    "clear": lambda f: f.clear(),
    "sync": lambda f: f.sync(),
}


def truncate_to_0(path, _):
    os.truncate(path, 0)


def shrink_by_a_page(path, _):
    os.truncate(path, os.path.getsize(path) - os.sysconf("SC_PAGE_SIZE"))


def header_of_another(path, other):
    with open(other, "rb") as src, open(path, "r+b") as dst:
        dst.write(src.read(64))


def four_layers(path, windowed):
    """A set of 4 layers of 1,000 keys at path: scalable (expansion 1) or
    windowed (keep 4, a window per layer on an injected clock)."""
    if not windowed:
        s = mmapbloom.create(path, 1000, 0.01, expansion=1)
        s.add_batch([f"k{i}" for i in range(3500)])
        return s
    t = [10**18]
    s = mmapbloom.create(path, 1000, 0.01, window=3600, keep=4, now=lambda: t[0])
    for w in range(4):
        t[0] = 10**18 + w * 3600 * 10**9
        s.add_batch([f"w{w}k{i}" for i in range(900)])
    return s


@require_xxhash
class ShrinkTest(TempDirTest):
    def test_file_changed_under_mapping(self):
        for shape in ({}, {"layout": "classic"}, {"version": 1}):
            other = self.path("other.bloom")
            mmapbloom.create(other, 100_000, 0.01, **shape).close()  # another random seed
            for change in (truncate_to_0, shrink_by_a_page, header_of_another):
                for name, call in CALLS.items():
                    with self.subTest(shape=shape, change=change.__name__, call=name):
                        path = self.path(f"{name}.bloom")
                        with mmapbloom.create(path, 100_000, 0.01, seed=5, **shape) as f:
                            f.update(f"k{i}" for i in range(1000))
                            change(path, other)
                            with self.assertRaises(mmapbloom.FileChanged):
                                call(f)
                            with self.assertRaises(mmapbloom.FileChanged, msg="later call"):
                                f.add("k1")
                        with self.assertRaises(mmapbloom.Closed):
                            "k1" in f
                        os.unlink(path)
            os.unlink(other)

    def test_set_layer_changed_under_mapping(self):
        # a set of 4 blocked layers (layers of 1,000 keys: smaller ones are
        # classic), scalable or windowed (4 windows live), whose oldest
        # layer file changes: an absent key probes every layer, so each
        # call must find the change first
        set_calls = {name: CALLS[name] for name in ("in", "add", "test_batch", "add_batch")}
        other = self.path("other.bloom")
        mmapbloom.create(other, 1000, 0.005).close()
        for change in (truncate_to_0, shrink_by_a_page, header_of_another):
            for (name, call), windowed in itertools.product(set_calls.items(), (False, True)):
                with self.subTest(change=change.__name__, call=name, windowed=windowed):
                    path = self.path(f"{name}.bfset")
                    with four_layers(path, windowed) as s:
                        self.assertEqual(len(s.layers), 4)
                        oldest = os.path.join(path, s.layers[0]["file"])
                        if change is shrink_by_a_page:  # a layer of 1,000 keys is smaller than a page
                            os.truncate(oldest, 64)
                        else:
                            change(oldest, other)
                        with self.assertRaises(mmapbloom.FileChanged):
                            call(s)
                    shutil.rmtree(path)

    def test_grown_file_still_works(self):
        path = self.path()
        with mmapbloom.create(path, 1000, 0.01) as f:
            f.add("a")
            with open(path, "ab") as raw:
                raw.write(b"trailing")
            self.assertIn("a", f)
        shutil.copy(path, self.path("copy.bloom"))
        with mmapbloom.open(self.path("copy.bloom")) as g:
            self.assertIn("a", g)
