"""Per-process throughput of the Python package: single `in` and add, and
the batch forms, for each layout, in keys per second. Each operation runs
over its keys in 10 rounds; the table gives the median and the best
round's rate by the wall clock, and the median by this process's CPU time
(the machine may be shared: a round that lost the CPU shows in the median,
not in the best).

With --set it measures a scalable filter set of 4 layers too (expansion
1, filled through three growth points first: an absent key probes all 4),
with --windowed a windowed set of 4 live layers (keep 4, layers of --keys
keys each, one per window of an injected clock, the older three full: an
absent key probes all 4), and --default-only keeps the default layout alone.

usage: PYTHONPATH=python/src python3 python/bench.py [--n 1000000] [--keys 200000] [--dir /tmp] [--set] [--windowed] [--default-only]
"""

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time

import mmapbloom

SHAPES = [
    ("blocked512 xxh3 (default)", {}),
    ("classic xxh3-remix", {"layout": "classic", "scheme": "xxh3-remix"}),
    ("classic murmur2-double", {"scheme": "murmur2-double"}),
]


ROUNDS = 10


def timed(run, keys):
    """Run run(chunk) over keys in ROUNDS chunks; return the median and best
    wall-clock rate and the median CPU-time rate, in keys per second."""
    size = len(keys) // ROUNDS
    wall, cpu = [], []
    for r in range(ROUNDS):
        chunk = keys[r * size:(r + 1) * size]
        w, c = time.perf_counter(), time.process_time()
        run(chunk)
        wall.append(size / (time.perf_counter() - w))
        cpu.append(size / max(time.process_time() - c, 1e-9))
    return statistics.median(wall), max(wall), statistics.median(cpu)


def singles(op):
    return lambda chunk: [op(k) for k in chunk]


def batches(op):
    return lambda chunk: [op(chunk[i:i + 1000]) for i in range(0, len(chunk), 1000)]


def bench(path, n, nkeys, shape):
    added = [f"https://example.com/bench/{i}/index.html" for i in range(nkeys)]
    fresh = [f"https://example.org/fresh/{i}/index.html" for i in range(nkeys)]
    batch = [f"https://example.net/batch/{i}/index.html" for i in range(nkeys)]
    rows = {}
    with mmapbloom.create(path, n, 0.01, **shape) as f:
        rows["add (new keys)"] = timed(singles(f.add), added)
        rows["in (present keys)"] = timed(singles(f.__contains__), added)
        rows["in (absent keys)"] = timed(singles(f.__contains__), fresh)
        rows["add_batch (new keys, 1000 per call)"] = timed(batches(f.add_batch), batch)
        rows["test_batch (present keys, 1000 per call)"] = timed(batches(f.test_batch), added)
    os.unlink(path)
    return rows


def set_keys(nkeys):
    """The keys of a 4-layer set's rows: added (3.1 layers of nkeys keys),
    fresh (never added) and batch (added by add_batch)."""
    added = [f"https://example.com/set/{i}/index.html" for i in range(3 * nkeys + nkeys // 10)]
    fresh = [f"https://example.org/fresh/{i}/index.html" for i in range(nkeys)]
    batch = [f"https://example.net/batch/{i}/index.html" for i in range(nkeys // 2)]
    return added, fresh, batch


def set_rows(s, added, fresh, batch):
    """The rows of bench on a set of 4 layers holding added; present keys are
    the last len(fresh) of added, as the absent keys are as many."""
    probe = added[-len(fresh):]
    rows = {}
    rows["in (present keys)"] = timed(singles(s.__contains__), probe)
    rows["in (absent keys)"] = timed(singles(s.__contains__), fresh)
    rows["add_batch (new keys, 1000 per call)"] = timed(batches(s.add_batch), batch)
    rows["test_batch (present keys, 1000 per call)"] = timed(batches(s.test_batch), probe)
    assert len(s.layers) == 4, s.layers
    return rows


def bench_set(path, nkeys):
    """A scalable set of expansion 1 and layers of nkeys keys, grown to 4
    layers, then the rows of bench on it."""
    added, fresh, batch = set_keys(nkeys)
    with mmapbloom.create(path, nkeys, 0.01, expansion=1) as s:
        for i in range(0, len(added), 1000):
            s.add_batch(added[i:i + 1000])
        assert len(s.layers) == 4, s.layers
        rows = set_rows(s, added, fresh, batch)
    shutil.rmtree(path)
    return rows


def bench_windowed(path, nkeys):
    """A windowed set of one-hour windows, keep 4, layers of nkeys keys: an
    injected clock moves to the next window after each nkeys keys, so the
    4 windows' layers are live (the newest holds nkeys / 10 keys before
    add_batch), then the rows of bench on it."""
    added, fresh, batch = set_keys(nkeys)
    t = [10**18]
    with mmapbloom.create(path, nkeys, 0.01, window=3600, keep=4, now=lambda: t[0]) as s:
        for i in range(0, len(added), 1000):
            t[0] = 10**18 + (i // nkeys) * 3600 * 10**9
            s.add_batch(added[i:i + 1000])
        assert [l["window"] for l in s.layers] == [0, 1, 2, 3], s.layers
        rows = set_rows(s, added, fresh, batch)
    shutil.rmtree(path)
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
    ap.add_argument("--set", action="store_true", help="also a scalable set of 4 layers")
    ap.add_argument("--windowed", action="store_true", help="also a windowed set of 4 live layers")
    ap.add_argument("--default-only", action="store_true", help="the default layout only")
    a = ap.parse_args()
    print(f"# Python {platform.python_version()}, {cpu_model()}, {os.cpu_count()} cores; "
          f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"# n = {a.n:,} at p = 0.01, {a.keys:,} keys per row in {ROUNDS} rounds; keys per second")
    print("| layout, scheme | operation | wall, median | wall, best round | CPU time, median |")
    print("|---|---|---:|---:|---:|")
    for name, shape in SHAPES[:1] if a.default_only else SHAPES:
        for op, rates in bench(os.path.join(a.dir, f"bench-{os.getpid()}.bloom"), a.n, a.keys, shape).items():
            print(f"| {name} | {op} | " + " | ".join(f"{x:,.0f}" for x in rates) + " |")
    if a.set:
        for op, rates in bench_set(os.path.join(a.dir, f"bench-{os.getpid()}.bfset"), a.keys).items():
            print(f"| set of 4 layers (blocked512) | {op} | " + " | ".join(f"{x:,.0f}" for x in rates) + " |")
    if a.windowed:
        for op, rates in bench_windowed(os.path.join(a.dir, f"bench-{os.getpid()}-w.bfset"), a.keys).items():
            print(f"| windowed set, 4 live layers (blocked512) | {op} | " + " | ".join(f"{x:,.0f}" for x in rates) + " |")
    print(f"# load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
