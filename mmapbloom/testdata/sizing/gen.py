#!/usr/bin/python3
"""Writes sizing.tsv: m and k over a sweep of n and p, computed from the
formulas as the documents and mmapbloom's doc comments state them, in
Python, sharing no code with the Go library. Run from this directory:

    /usr/bin/python3 gen.py

Columns: formula, n, p (repr, exact as a double), m, k; m and k are
"error" where the library must refuse (m or k out of range).

  v1       document 003's _CalcBloomFilterParam (format v1.1; the
           reference vectors' README): m = ceil(-n ln p / 0.480453),
           m = m - m%64 + 64, k = round(0.69314 m / n); m must stay below
           2^32 (the 32-bit header), k <= 64.
  classic  OptimalClassic (v2 classic): m = ceil(-n ln p / (ln 2)^2),
           k = round(ln 2 m / n), at least 1; m <= 2^50, k <= 64; when
           k = 1, m = max(m, ceil(n / -ln(1 - p))), what one probe needs.
  seeds    document 000's init_bloomfilter: p as a 32-bit float,
           m = floor(-(ln p) n / (ln 2)^2), at least 1, k = ceil(ln 2 m / n),
           at least 1; m <= 2^50, k <= 64.
  seeds-prime  the same with m raised to the next prime.
  default  Create's default layout below p = 1e-6 (MinBlockedP): classic,
           sized as OptimalClassic for p (1 - 0.08 (1 - p)) (withMargin).
"""

import math
import struct

LN2 = math.log(2)
NS = [1, 2, 3, 7, 10, 100, 1000, 12345, 100000, 1000000, 123456789, 2_000_000_000, 10**12]
# (n, p) where document 003's rounded constants give another k (the first
# two) or m (the last two) than exact ln 2 and (ln 2)^2 would, found by a
# random search: they tell the constants apart.
EDGES = [(9841, 2.7e-06), (7184, 5.4e-06), (7472358, 0.0003), (4972606, 1e-06)]
# (n, p) at v1.1's limit: ceil(-n ln p / 0.480453) is 2^32-65, the most
# a v1.1 header holds (m = 2^32-64 after rounding), then 18 above it.
V1_LIMITS = [(198143542, 29999850000749997e-21), (169057576, 49999750001249995e-22)]
PS = [0.5, 0.3, 0.1, 0.05, 0.01, 0.005, 0.001, 1e-4, 1e-5, 1e-6, 1e-9, 1e-12, 1e-19, 1e-20]


def round_half_up(x):
    return math.floor(x + 0.5)


def v1(n, p):
    mf = math.ceil(-n * math.log(p) / 0.480453)
    if n > 2**32 - 1 or mf > 2**32 - 1 - 64:
        return None
    m = mf - mf % 64 + 64
    k = max(1, round_half_up(0.69314 * m / n))
    return (m, k) if k <= 64 else None


def classic(n, p):
    m = math.ceil(-n * math.log(p) / (LN2 * LN2))
    if m > 2**50:
        return None
    k = max(1, round_half_up(LN2 * m / n))
    if k == 1:  # one probe: 1 - e^(-n/m) <= p
        m = max(m, math.ceil(n / -math.log1p(-p)))
    return (m, k) if k <= 64 else None


def is_prime(x):
    if x < 2:
        return False
    for d in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if x % d == 0:
            return x == d
    d = 41
    while d * d <= x:
        if x % d == 0:
            return False
        d += 2
    return True


def seeds(n, p, prime):
    p32 = struct.unpack("<f", struct.pack("<f", p))[0]
    m = math.floor(-(math.log(p32) * n) / (LN2 * LN2))
    if m > 2**50:
        return None
    m = max(m, 1)
    if prime:
        m = max(m, 2)
        while not is_prime(m):
            m += 1
    k = max(1, math.ceil(LN2 * m / n))
    return (m, k) if k <= 64 else None


def main():
    rows = ["formula\tn\tp\tm\tk"]
    for n in NS:
        for p in PS:
            cases = [("v1", v1(n, p)), ("classic", classic(n, p)), ("seeds", seeds(n, p, False))]
            if p < 1e-6:
                cases.append(("default", classic(n, p * (1 - 0.08 * (1 - p)))))
            if -n * math.log(p) < 1e10:  # primes found by trial division
                cases.append(("seeds-prime", seeds(n, p, True)))
            for name, mk in cases:
                m, k = mk if mk else ("error", "error")
                rows.append(f"{name}\t{n}\t{p!r}\t{m}\t{k}")
    for n, p in EDGES + V1_LIMITS:
        for name, mk in (("v1", v1(n, p)), ("classic", classic(n, p))):
            m, k = mk if mk else ("error", "error")
            rows.append(f"{name}\t{n}\t{p!r}\t{m}\t{k}")
    with open("sizing.tsv", "w", newline="\n") as out:
        out.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
