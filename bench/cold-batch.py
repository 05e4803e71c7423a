"""Python's cold test_batch with and without its pages read ahead, on a
filter file made by cold-batch.sh or on a filter set (a PATH ending in
.bfset), alternated, ROUNDS rounds: each run drops the file, or every
layer file of the set, from the page cache (posix_fadvise DONTNEED), opens
it read-only and times one test_batch of K fresh URL-like keys. "plain"
fixes the residency decision of the filter, or of every layer, to warm
(the path before read-ahead). A set missing at PATH is made first: a
scalable set of 2 layers (expansion 1, p 1e-4) of SIZE_GB in all (default
3), their bit arrays random bytes as cold-batch.sh writes its file, so
that every page is on the disk and each key reads one page in each layer.
Usage: python3 bench/cold-batch.py PATH [K [ROUNDS]]  (docs/operations.md)"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "src"))
import mmapbloom  # noqa: E402
from mmapbloom.header import HEADER_SIZE  # noqa: E402


def make_set(path, size):
    """A scalable set of two layers of about size bytes in all, random bits."""
    n = int(size / 2 / 3.2)  # a blocked layer at p 5e-5 or 2.5e-5: 3.0-3.3 bytes a key
    with mmapbloom.create(path, n, 1e-4, expansion=1) as s:
        fill(s._current().layers[0])
        s._current().layers[0]._store_count(n)  # full: the next add adds layer 1
    with mmapbloom.open(path, "rw") as s:
        s.add(b"https://seed.example/")
        fill(s._current().layers[1])
    os.sync()


def fill(f):
    """Write random bytes over the bit array of the layer f, through its file."""
    for off in range(HEADER_SIZE, f._size, 1 << 20):
        os.pwrite(f._fd, os.urandom(min(1 << 20, f._size - off)), off)


def files(path):
    """The filter file at path, or the layer files of the set at path."""
    if not os.path.isdir(path):
        return [path]
    with mmapbloom.open(path) as s:
        return [f.path for f in s._current().layers]


def drop(name):
    fd = os.open(name, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


path, k = sys.argv[1].rstrip("/"), int(sys.argv[2]) if len(sys.argv) > 2 else 5000
if path.endswith(".bfset") and not os.path.exists(path):
    make_set(path, float(os.environ.get("SIZE_GB", "3")) * (1 << 30))
names = files(path)
print(f"# {path}: {len(names)} file(s), {sum(os.path.getsize(n) for n in names)} bytes; K={k}")
for rnd in range(int(sys.argv[3]) if len(sys.argv) > 3 else 2):
    for mode in ("plain", "ahead"):
        keys = [b"https://www.host%05d.example/path/%016x?q=%d" % (random.randrange(100000), random.getrandbits(64), i)
                for i in range(k)]
        for name in names:
            drop(name)
        with mmapbloom.open(path) as f:
            layers = f._current().layers if os.path.isdir(path) else [f]
            if mode == "plain":
                for layer in layers:
                    layer._residency.budget = 1 << 62
            t = time.time()
            f.test_batch(keys)
            dt = time.time() - t
            cold = sum(layer._residency.cold for layer in layers)
        load = os.getloadavg()
        print(f"round {rnd + 1} python test_batch {mode}: {k / dt:.0f} keys/s, {cold} of {len(layers)} cold "
              f"(load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
