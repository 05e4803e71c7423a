"""Per-process throughput of the Python package: single `in` and add, and
the batch forms, for each layout, in keys per second (wall clock and CPU
time of this process, since the machine may be shared).

usage: PYTHONPATH=python python3 python/bench.py [--n 1000000] [--keys 200000] [--dir /tmp]
"""

import argparse
import os
import platform
import tempfile
import time

import mmapbloom

SHAPES = [
    ("blocked512 xxh3 (default)", {}),
    ("classic xxh3-remix", {"layout": "classic", "scheme": "xxh3-remix"}),
    ("classic murmur2-double", {"scheme": "murmur2-double"}),
]


def timed(fn, count):
    w, c = time.perf_counter(), time.process_time()
    fn()
    return count / (time.perf_counter() - w), count / (time.process_time() - c)


def bench(path, n, nkeys, shape):
    added = [f"https://example.com/bench/{i}/index.html" for i in range(nkeys)]
    fresh = [f"https://example.org/fresh/{i}/index.html" for i in range(nkeys)]
    batch = [f"https://example.net/batch/{i}/index.html" for i in range(nkeys)]
    rows = {}
    with mmapbloom.create(path, n, 0.01, **shape) as f:
        add, contains = f.add, f.__contains__
        rows["add (new keys)"] = timed(lambda: [add(k) for k in added], nkeys)
        rows["in (present keys)"] = timed(lambda: [contains(k) for k in added], nkeys)
        rows["in (absent keys)"] = timed(lambda: [contains(k) for k in fresh], nkeys)
        rows["add_batch (new keys, 1000 per call)"] = timed(
            lambda: [f.add_batch(batch[i:i + 1000]) for i in range(0, nkeys, 1000)], nkeys)
        rows["test_batch (present, 1000 per call)"] = timed(
            lambda: [f.test_batch(added[i:i + 1000]) for i in range(0, nkeys, 1000)], nkeys)
    os.unlink(path)
    return rows


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000, help="filter capacity (p = 0.01)")
    ap.add_argument("--keys", type=int, default=200_000, help="keys per measurement")
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    print(f"# Python {platform.python_version()}, {cpu_model()}, {os.cpu_count()} cores; "
          f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"# n = {a.n:,} at p = 0.01, {a.keys:,} keys per row; keys/s, wall clock (CPU time of the process)")
    print("| layout, scheme | operation | keys/s wall | keys/s CPU |")
    print("|---|---|---:|---:|")
    for name, shape in SHAPES:
        for op, (wall, cpu) in bench(os.path.join(a.dir, f"bench-{os.getpid()}.bloom"), a.n, a.keys, shape).items():
            print(f"| {name} | {op} | {wall:,.0f} | {cpu:,.0f} |")
    print(f"# load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
