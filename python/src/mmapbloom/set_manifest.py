"""A filter set's MANIFEST and CONTROL page, and its layer sizing: the
"Filter sets" section of format/FORMAT.md (set version 1), as the Go
library writes them (mmapbloom/internal/manifest, mmapbloom/set_sizing.go),
so that Python and Go size the same layers."""

import json
import math
import os
import re
from typing import Any, Dict, List, Tuple

from . import errors

MANIFEST, CONTROL, LOCK = "MANIFEST", "CONTROL", "LOCK"
CONTROL_SIZE, CONTROL_MAGIC, CONTROL_VERSION = 4096, b"BLS\x01", 1
SET_VERSION = 1
SCALABLE, WINDOWED = "scalable", "windowed"
MIN_LAYER_P = 1e-19  # Go: minLayerP, the floor of a later layer's rate
_MASK64 = (1 << 64) - 1
_LAYER = re.compile(r"L(\d+)\.bloom")
# Fields Go omits when zero (omitempty), in Go's order.
_ORDER = ("version", "generation", "kind", "n", "p", "layout", "seed", "expansion", "tightening", "window_ns",
          "keep", "t0_unix_ns", "refresh", "sealed", "next", "layers")
_OMIT_ZERO = {"expansion", "tightening", "window_ns", "keep", "t0_unix_ns", "refresh", "sealed"}

Manifest = Dict[str, Any]


def layer_name(i: int) -> str:
    """The file name of layer number i."""
    return f"L{i:06d}.bloom"


def windowed(m: Manifest) -> bool:
    return m["kind"] == WINDOWED


def grows(m: Manifest) -> bool:
    """Whether the set adds layers when its newest is full."""
    return not windowed(m) or bool(m.get("expansion"))


def window_at(m: Manifest, t_ns: int) -> int:
    """The index of the window holding Unix time t_ns (floor division, as Go's windowAt)."""
    return (t_ns - m["t0_unix_ns"]) // m["window_ns"]


def window_end(m: Manifest, i: int) -> int:
    """The Unix time in ns window i ends."""
    return m["t0_unix_ns"] + (i + 1) * m["window_ns"]


def read(directory: str) -> Manifest:
    """Read and validate directory's MANIFEST (BadSet when it is not a set or the MANIFEST is bad)."""
    # MANIFEST is opened relative to a handle on the directory, so that a
    # set renamed into place meanwhile is never taken for one without it.
    dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)  # FileNotFoundError: no set
    try:
        fd = os.open(MANIFEST, os.O_RDONLY, dir_fd=dfd)
    except FileNotFoundError:
        raise errors.BadSet(f"{directory}: no {MANIFEST}: not a filter set") from None
    finally:
        os.close(dfd)
    try:
        with os.fdopen(fd, "rb") as f:
            m = json.loads(f.read())
    except ValueError as e:
        raise errors.BadSet(f"{directory}: {MANIFEST}: {e}") from None
    check(directory, m)
    return m


def check(directory: str, m: Any) -> None:
    """Go's manifest.check: version, kind, layers, window, keep, expansion, tightening, the layer list."""
    bad = ""
    if not isinstance(m, dict) or m.get("version") != SET_VERSION:
        bad = f"manifest version {m.get('version') if isinstance(m, dict) else m!r} (want {SET_VERSION})"
    elif m.get("kind") not in (SCALABLE, WINDOWED):
        bad = f"manifest kind {m.get('kind')!r}"
    elif not m.get("layers"):
        bad = "manifest lists no layer"
    else:
        for name in ("expansion", "tightening", "window_ns", "keep", "t0_unix_ns", "layout", "next", "generation"):
            m.setdefault(name, 0)
        m.setdefault("refresh", False)
        m.setdefault("sealed", False)
        for layer in m["layers"]:
            layer.setdefault("window", 0)
        if windowed(m) and (m["window_ns"] <= 0 or m["keep"] < 1):
            bad = f"manifest window {m['window_ns']} ns, keep {m['keep']}"
        elif grows(m) and (m["expansion"] < 1 or not 0 < m["tightening"] < 1):
            bad = f"manifest expansion {m['expansion']}, tightening {m['tightening']}"
        else:
            bad = _check_layers(m)
    if bad:
        raise errors.BadSet(f"{directory}: {bad}: not a valid filter set")


def _check_layers(m: Manifest) -> str:
    listed = set()
    prev = None
    for layer in m["layers"]:
        name = layer.get("file", "")
        num = _LAYER.fullmatch(name)
        if name != os.path.basename(name) or name in (".", "..", ""):
            return f"manifest layer file {name!r}"
        if name in listed:
            return f"manifest layer file {name} listed twice"
        if num and int(num.group(1)) >= m["next"]:
            return f"manifest layer file {name} at or after next {m['next']}"
        if windowed(m) and prev is not None and layer["window"] < prev:
            return f"manifest layer file {name} of window {layer['window']} after window {prev}"
        listed.add(name)
        prev = layer["window"]
    return ""


def encode(m: Manifest) -> bytes:
    """The MANIFEST bytes: Go's field order, its zero fields omitted, indented."""
    out = {k: m[k] for k in _ORDER if k in m and not (k in _OMIT_ZERO and not m[k])}
    out["layers"] = [{k: v for k, v in layer.items() if k != "window" or v} for layer in m["layers"]]
    return (json.dumps(out, indent=2) + "\n").encode()


def write(directory: str, m: Manifest) -> None:
    """Replace directory's MANIFEST atomically and durably: a temporary file
    fsynced, renamed over MANIFEST, the directory fsynced."""
    tmp = os.path.join(directory, f"{MANIFEST}.tmp.{os.getpid()}")
    write_synced(tmp, encode(m))
    os.rename(tmp, os.path.join(directory, MANIFEST))
    sync_dir(directory)


def write_synced(path: str, data: bytes) -> None:
    """Create path holding data, fsynced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def control_page(generation: int) -> bytes:
    """A new CONTROL page holding generation."""
    return (CONTROL_MAGIC + CONTROL_VERSION.to_bytes(4, "little") + generation.to_bytes(8, "little")).ljust(
        CONTROL_SIZE, b"\0")


def go_pow(x: float, n: int) -> float:
    """x**n for an integer n >= 0 exactly as Go's math.Pow computes it
    (squarings of frexp's mantissa), so that layer rates match Go's bit for bit."""
    if n == 0 or x == 1:
        return 1.0
    if n == 1:
        return x
    a1, ae = 1.0, 0
    x1, xe = math.frexp(x)
    i = n
    while i:
        if xe < -(1 << 12) or (1 << 12) < xe:
            ae += xe
            break
        if i & 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    try:
        return math.ldexp(a1, ae)
    except OverflowError:
        return math.inf


def scalable_layer(n: int, p: float, s: int, r: float, i: int) -> Tuple[int, float]:
    """Layer i of a scalable set: n s^i keys at max(p (1-r) r^i, min(p (1-r), 1e-19))
    (Almeida et al., "Scalable Bloom Filters", 2007; Go: scalableLayer)."""
    ni = n * s ** i
    if ni > _MASK64:
        raise errors.TooLarge(f"set layer {i}: capacity {n} * {s}^{i} does not fit 64 bits")
    first = p * (1 - r)
    return ni, max(first * go_pow(r, i), min(first, MIN_LAYER_P))


def next_layer(m: Manifest, window: int) -> Tuple[int, float]:
    """The capacity and rate of the layer m adds next (for window window of a windowed set)."""
    if not windowed(m):
        return scalable_layer(m["n"], m["p"], m["expansion"], m["tightening"], len(m["layers"]))
    n, p = m["n"], m["p"] / m["keep"]
    if not m["expansion"]:
        return n, p
    j = sum(1 for layer in m["layers"] if layer["window"] == window)
    return scalable_layer(n, p, m["expansion"], m["tightening"], j)


