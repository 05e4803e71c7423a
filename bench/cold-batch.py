"""Python's cold test_batch with and without its pages read ahead, on a
filter file made by cold-batch.sh, alternated, ROUNDS rounds: each run
drops the file from the page cache (posix_fadvise DONTNEED), opens it
read-only and times one test_batch of K fresh URL-like keys. "plain"
fixes the residency decision to warm (the path before read-ahead).
Usage: python3 bench/cold-batch.py FILE [K [ROUNDS]]  (docs/operations.md)"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "src"))
import mmapbloom  # noqa: E402

path, k = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5000
for rnd in range(int(sys.argv[3]) if len(sys.argv) > 3 else 2):
    for mode in ("plain", "ahead"):
        keys = [b"https://www.host%05d.example/path/%016x?q=%d" % (random.randrange(100000), random.getrandbits(64), i)
                for i in range(k)]
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
        with mmapbloom.open(path) as f:
            if mode == "plain":
                f._residency.budget = 1 << 62
            t = time.time()
            f.test_batch(keys)
            dt = time.time() - t
        print(f"round {rnd + 1} python test_batch {mode}: {k / dt:.0f} keys/s")
