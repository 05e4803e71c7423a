"""Sizing rules, the same as the Go library's (mmapbloom/sizing.go,
sizing_blocked.go): for the same n and p Python and Go pick the same m and
k, so that they write byte-identical headers."""

import math
import struct

from . import errors
from .header import MAX_BITS_V2, MAX_K

LN2 = math.log(2)
LN2_SQUARED = LN2 * LN2
DOC003_LN2_SQUARED = 0.480453
DOC003_LN2 = 0.69314
MIN_BLOCKED_P = 1e-6  # Go: MinBlockedP
_ONE_MINUS_MARGIN = 0.08  # Go's constant 1 - sizingMargin, exact (1 - 0.92 in floats is 0.07999999999999996)
MAX_DEFAULT_RATIO = 1.4  # Go: MaxDefaultRatio
BLOCK_BITS = 512


def check_np(n, p):
    """Raise InvalidArgument unless n is an int in [1, 2^64) and p is a
    finite number in (0, 1); each refusal says which rule n broke."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise errors.InvalidArgument(f"capacity n = {n!r}: n must be an int (a number of keys), not {type(n).__name__}")
    if n < 1 or n >= 1 << 64:
        raise errors.InvalidArgument(f"capacity n = {n!r}: n must be at least 1 and below 2**64")
    if not isinstance(p, (int, float)) or math.isnan(p) or math.isinf(p) or p <= 0 or p >= 1:
        raise errors.InvalidArgument(f"p = {p!r}: p must be a finite number in (0, 1)")


def go_round(x):
    """Go's math.Round for x >= 0: half away from zero (Python's round is half to even)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def round_k(kf):
    """Round a real k to the nearest integer in [1, 64] (Go: roundK)."""
    k = max(1.0, go_round(kf))
    if k > MAX_K:
        raise errors.InvalidArgument(f"k = {k:.0f}, above {MAX_K}")
    return int(k)


def with_margin(p):
    """The rate the default layouts are sized for to stay at or below p:
    p (1 - 0.08 (1 - p)), 0.92 p at small p (Go: withMargin)."""
    return p * (1 - _ONE_MINUS_MARGIN * (1 - p))


def optimal_classic(n, p):
    """m = ceil(-n ln p / (ln 2)^2), k = round(ln 2 m / n); when k is 1, m
    at least ceil(n / -ln(1 - p)), what one probe needs (Go: OptimalClassic)."""
    check_np(n, p)
    mf = math.ceil(-float(n) * math.log(p) / LN2_SQUARED)
    if mf > MAX_BITS_V2:
        raise errors.TooLarge(f"n = {n}, p = {p} needs {mf} bits, above {MAX_BITS_V2}")
    m = int(mf)
    k = round_k(LN2 * float(m) / float(n))
    if k == 1:
        m = max(m, int(math.ceil(float(n) / -math.log1p(-p))))
    return m, k


def blocked_pays(n, p):
    """Whether Create's default layout is blocked512: p >= 1e-6 and the
    blocked layout needs at most 1.4 times the classic bits (Go: blockedPays)."""
    if p < MIN_BLOCKED_P:
        return False
    try:
        bm, _ = optimal_blocked(n, p)
        cm, _ = optimal_classic(n, p)
    except errors.MmapBloomError:
        return False
    return float(bm) <= MAX_DEFAULT_RATIO * float(cm)


def size_v1(n, p):
    """Document 003's _CalcBloomFilterParam exactly (Go: sizeV1)."""
    check_np(n, p)
    if n >= 1 << 32:
        raise errors.TooLarge(f"n = {n} does not fit format v1.1 (32-bit); use v2")
    mf = math.ceil(-float(n) * math.log(p) / DOC003_LN2_SQUARED)
    if mf > (1 << 32) - 1 - 64:
        raise errors.TooLarge(f"n = {n}, p = {p} needs {mf} bits, format v1.1 holds below 2^32; use v2")
    m = int(mf)
    m = m - m % 64 + 64
    return m, round_k(DOC003_LN2 * float(m) / float(n))


def _float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def size_seeds(n, p, prime):
    """Document 000's init_bloomfilter sizing exactly (Go: sizeSeeds)."""
    check_np(n, p)
    p32 = _float32(p)
    if p32 <= 0 or p32 >= 1:
        raise errors.InvalidArgument(f"p = {p} is not in (0, 1) as a 32-bit float")
    mf = math.floor(-(math.log(p32) * float(n)) / LN2_SQUARED)
    if mf > MAX_BITS_V2:
        raise errors.TooLarge(f"n = {n}, p = {p} needs {mf} bits, above {MAX_BITS_V2}")
    m = max(int(mf), 1)
    if prime:
        m = next_prime(m)
    kf = math.ceil(LN2 * float(m) / float(n))
    if kf > MAX_K:
        raise errors.InvalidArgument(f"k = {kf}, above {MAX_K}")
    return m, max(int(kf), 1)


def _is_prime(x):
    """Deterministic Miller-Rabin for x < 2^64 (these bases suffice)."""
    if x < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for b in bases:
        if x % b == 0:
            return x == b
    d, s = x - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in bases:
        y = pow(a, d, x)
        if y in (1, x - 1):
            continue
        for _ in range(s - 1):
            y = y * y % x
            if y == x - 1:
                break
        else:
            return False
    return True


def next_prime(x):
    """The smallest prime >= max(x, 2)."""
    x = max(x, 2)
    while not _is_prime(x):
        x += 1
    return x


def optimal_blocked(n, p):
    """The fewest 512-bit blocks whose false-positive rate stays at most
    with_margin(p) three standard deviations above its mean, at the best k
    (Go: OptimalBlocked)."""
    check_np(n, p)
    if p < MIN_BLOCKED_P:
        raise errors.InvalidArgument(f"p = {p} is below {MIN_BLOCKED_P}, the blocked layout's floor; use the classic layout")

    def fits(c):
        blocks = math.ceil(float(n) * c / BLOCK_BITS)
        mean, spread, _ = best_blocked_k(float(n) / blocks)
        return mean + 3 * spread / math.sqrt(blocks) <= with_margin(p)

    lo, hi = 0.0, 128.0
    while hi - lo > 1e-4:
        c = (lo + hi) / 2
        if fits(c):
            hi = c
        else:
            lo = c
    blocks = math.ceil(float(n) * hi / BLOCK_BITS)
    if blocks * BLOCK_BITS > MAX_BITS_V2:
        raise errors.TooLarge(f"n = {n}, p = {p} needs {blocks * BLOCK_BITS} bits, above {MAX_BITS_V2}")
    _, _, k = best_blocked_k(float(n) / blocks)
    return int(blocks) * BLOCK_BITS, k


def best_blocked_k(lam):
    """The k in [1, 64] with the lowest mean blocked_fpr at lam keys per block."""
    mean, spread, k = math.inf, 0.0, 0
    for j in range(1, MAX_K + 1):
        mj, sj = blocked_fpr(lam, j)
        if mj >= mean:
            break
        mean, spread, k = mj, sj, j
    return mean, spread, k


def blocked_fpr(lam, k):
    """Mean and standard deviation of the false-positive rate of a block
    holding Poisson(lam) keys, each setting k uniform bits of 512."""
    kf = float(k)
    log_keep = math.log1p(-1.0 / BLOCK_BITS)
    last = int(lam + 12 * math.sqrt(lam) + 30)
    mean = sq = 0.0
    log_pj = -lam
    for j in range(last + 1):
        if j > 0:
            log_pj += math.log(lam / float(j))
        f = math.pow(-math.expm1(float(j) * kf * log_keep), kf)
        w = math.exp(log_pj)
        mean += w * f
        sq += w * f * f
    return mean, math.sqrt(max(0.0, sq - mean * mean))
