"""The Python module against Python talking to `mmapbloom serve` over
redis-py (RESP on loopback), on the same keys in the same run: single
calls, and pipelines / batches of 1,000. Start the server first:

  mmapbloom serve --dir DIR --addr 127.0.0.1:PORT
  PYTHONPATH=python python3 python/bench_serve.py --port PORT [--keys 50000]
"""

import argparse
import os
import tempfile
import time

import redis

import mmapbloom

N, P = 1_000_000, 0.01


def rate(fn, count):
    t = time.perf_counter()
    fn()
    return count / (time.perf_counter() - t)


def chunks(keys, size=1000):
    return [keys[i:i + size] for i in range(0, len(keys), size)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--keys", type=int, default=50_000)
    a = ap.parse_args()
    keys = [f"https://example.com/serve/{i}/index.html" for i in range(a.keys)]
    more = [f"https://example.net/serve/{i}/index.html" for i in range(a.keys)]
    r = redis.Redis(host="127.0.0.1", port=a.port)
    r.execute_command("BF.RESERVE", "bench", P, N, "NONSCALING")

    def pipelined(cmd, ks):
        for c in chunks(ks):
            p = r.pipeline(transaction=False)
            for k in c:
                p.execute_command(cmd, "bench", k)
            p.execute()

    rows = {
        "BF.ADD, one call per key": rate(lambda: [r.execute_command("BF.ADD", "bench", k) for k in keys], a.keys),
        "BF.EXISTS, one call per key": rate(lambda: [r.execute_command("BF.EXISTS", "bench", k) for k in keys], a.keys),
        "BF.ADD, pipelines of 1000": rate(lambda: pipelined("BF.ADD", more), a.keys),
        "BF.EXISTS, pipelines of 1000": rate(lambda: pipelined("BF.EXISTS", more), a.keys),
    }
    path = os.path.join(tempfile.mkdtemp(), "direct.bloom")
    with mmapbloom.create(path, N, P) as f:
        rows["module add"] = rate(lambda: [f.add(k) for k in keys], a.keys)
        rows["module in"] = rate(lambda: [k in f for k in keys], a.keys)
        rows["module add_batch, 1000 per call"] = rate(lambda: [f.add_batch(c) for c in chunks(more)], a.keys)
        rows["module test_batch, 1000 per call"] = rate(lambda: [f.test_batch(c) for c in chunks(more)], a.keys)
    os.unlink(path)
    print(f"# {a.keys:,} keys per row, n = {N:,}, p = {P}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| from one Python process | keys/s |\n|---|---:|")
    for name, v in rows.items():
        print(f"| {name} | {v:,.0f} |")


if __name__ == "__main__":
    main()
