"""FilterSet: a filter set directory (NAME.bfset/) read and written beside
Go processes: "Filter sets" in format/FORMAT.md, and the Go library's Set
(mmapbloom/set*.go) step for step. Every call loads CONTROL's generation
once and re-reads MANIFEST when it moved; a layer is added (growth) or a
window started (rotation) under the set's LOCK (an open file description
lock, as Go's), by the first handle that finds it due; layers are sized
as Go sizes them, so a set grown by Python or by Go lists the same
layers with the same n and p."""

import contextlib
import fcntl
import itertools
import mmap
import os
import secrets
import tempfile
import time
from functools import partial
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from . import _cold, atomics, errors, hashing, locks
from . import set_manifest as sm
from .create import create
from .filter import Filter, Key, cold_reads, open_file, read_ahead
from .header import HEADER_SIZE, LAYOUT_BLOCKED512, V2
from .sizing import MIN_BLOCKED_P, check_np

RELOAD_TRIES = 8  # Go: reloadTries
COUNT_BATCH = 256
CHUNK = 256  # keys of a batch call between two generation checks (Go: setChunk)
MIN_WINDOW_NS = 1_000_000_000  # Go: MinWindow, 1 s
MAX_EXPANSION, MAX_KEEP = 32768, 1024
Clock = Callable[[], int]  # Unix time in nanoseconds
Probes = Tuple[Callable[[int], bool], Callable[[int], bool]]  # _layers_have: checked, unchecked


class _View:
    """What a handle knows of the set at one generation."""

    def __init__(self, gen: int, m: sm.Manifest, layers: List[Filter]):
        self.gen, self.m, self.layers = gen, m, layers
        self.active_end = sm.window_end(m, m["layers"][-1]["window"]) if sm.windowed(m) else 0
        self.capacity = m["layers"][-1]["n"]
        self.adds = 0
        self.full = sm.grows(m) and layers[-1]._count() >= self.capacity
        self.hashable = all(f._test_hash is not None for f in layers)
        self.windowed = sm.windowed(m)
        self._fused: Dict[Tuple[int, int], Probes] = {}
        self.has = self.fused(0, len(layers))[0] if self.hashable else None  # every layer's, for sets without windows
        self._span = (0, 0, 0)  # the window of the last live_from: its start and end (ns), its first live layer

    def fused(self, a: int, b: int) -> Probes:
        """_layers_have of the blocked layers[a:b], made once per view;
        an empty range holds no key."""
        p = self._fused.get((a, b))
        if p is None:
            p = self._fused[(a, b)] = _layers_have(self.layers[a:b]) if a < b else (_none, _none)
        return p

    def live_from(self, now: int) -> int:
        """The index of the oldest layer that answers at now (Go:
        setView.live): 0 for a set without windows; for a windowed set the
        first layer of a window after window_at(now) - keep, kept for the
        rest of that window."""
        if not self.windowed:
            return 0
        lo, hi, i = self._span
        if lo <= now < hi:
            return i
        w = sm.window_at(self.m, now)
        oldest = w - self.m["keep"] + 1
        ls = self.m["layers"]
        i = 0
        while i < len(ls) and ls[i]["window"] < oldest:
            i += 1
        lo = self.m["t0_unix_ns"] + w * self.m["window_ns"]
        self._span = (lo, lo + self.m["window_ns"], i)
        return i

    def live(self, now: int) -> List[Filter]:
        """The layers that answer at now, oldest first (Go: setView.live)."""
        return self.layers[self.live_from(now):]

    def live_probes(self, now: int) -> Probes:
        """The fused probes of the layers live at now (a hashable view)."""
        return self.fused(self.live_from(now), len(self.layers))

    def split(self, now: int) -> Tuple[List[Filter], Filter]:
        live, active = self.live(now), self.layers[-1]
        if live and live[-1] is active:
            live = live[:-1]
        return live, active

    def held(self, older: List[Filter], always: bool) -> List[Filter]:
        """Go's setView.held: the older layers an insert looks a key up in."""
        if not always:
            return older
        ls, k = self.m["layers"], 0
        while k < len(older) and ls[len(ls) - 2 - k]["window"] == ls[-1]["window"]:
            k += 1
        return older[len(older) - k:]

    def check_interval(self, c: int) -> int:
        if c >= self.capacity:
            return 1
        return min(COUNT_BATCH, max(1, (self.capacity - c) // 64))


class FilterSet:
    """A filter set opened with mmapbloom.open / create / open_or_create
    on a directory. Keys are str (UTF-8) or bytes; add returns whether the
    key was present before (Go's TestAndAdd). One FilterSet is for one
    thread; any number of handles and processes, Python or Go, may share
    the set. now, a function returning Unix time in ns, is the clock
    deciding a windowed set's windows (default time.time_ns)."""

    def __init__(self, directory: str, writable: bool, *, now: Optional[Clock] = None, exact_count: bool = False):
        self.path = os.fspath(directory)
        self.now: Clock = now or time.time_ns
        self._exact = exact_count
        self._closed = False
        self._view: Optional[_View] = None
        self._ctl: Any = None
        self._ctl_buf: Any = None
        m = sm.read(self.path)
        self.writable = writable and not m["sealed"]
        self._sealed = m["sealed"]
        self._atomics = atomics.load() if self.writable else None
        if self.writable and self._atomics is None:
            raise errors.NoAtomics(f"{self.path}: libatomic.so.1 not found (apt-get install libatomic1)")
        self._open_control()
        try:
            if self.writable:
                self._raise(m["generation"])
            self._reload()
        except BaseException:
            self.close()
            raise

    # ---- CONTROL ------------------------------------------------------

    def _open_control(self) -> None:
        path = os.path.join(self.path, sm.CONTROL)
        try:
            fd = open_file(path, os.O_RDWR if self.writable else os.O_RDONLY)
        except FileNotFoundError:
            raise errors.BadSet(f"{self.path}: no {sm.CONTROL}: not a valid filter set") from None
        try:
            if os.fstat(fd).st_size != sm.CONTROL_SIZE:
                raise errors.BadSet(f"{path}: {os.fstat(fd).st_size} bytes: not a valid filter set")
            self._ctl = mmap.mmap(fd, sm.CONTROL_SIZE, access=mmap.ACCESS_WRITE if self.writable else mmap.ACCESS_READ)
        finally:
            os.close(fd)
        if self._ctl[:4] != sm.CONTROL_MAGIC or int.from_bytes(self._ctl[4:8], "little") != sm.CONTROL_VERSION:
            self._ctl.close()
            raise errors.BadSet(f"{path}: bad magic or version: not a valid filter set")
        self._ctl_words = memoryview(self._ctl).cast("Q")
        if self.writable:
            import ctypes
            self._ctl_buf = ctypes.c_char.from_buffer(self._ctl)
            self._gen_addr = ctypes.addressof(self._ctl_buf) + 8

    def _generation(self) -> int:
        return self._ctl_words[1]  # an aligned 8-byte load, atomic as Go's LoadUint64

    def _raise(self, g: int) -> None:
        assert self._atomics is not None
        self._atomics.raise_64(self._gen_addr, g)

    # ---- views --------------------------------------------------------

    def _current(self) -> _View:
        if self._closed:
            raise errors.Closed(f"{self.path}: filter set is closed")
        v = self._view
        if v is not None and self._generation() == v.gen:
            return v
        return self._reload()

    def _reload(self) -> _View:
        old = self._view
        err: Optional[BaseException] = None
        for _ in range(RELOAD_TRIES):
            gen = self._generation()
            try:
                v = self._build(gen, old)
            except FileNotFoundError as e:  # a layer dropped meanwhile: read the newer MANIFEST
                err = e
                continue
            self._view = v
            if old is not None:
                keep = set(map(id, v.layers))
                for f in old.layers:
                    if id(f) not in keep:
                        f.close()
            return v
        raise errors.BadSet(f"{self.path}: layers vanished {RELOAD_TRIES} times while reading the set: {err}")

    def _build(self, gen: int, old: Optional[_View]) -> _View:
        m = sm.read(self.path)
        have = {l["file"]: f for l, f in zip(old.m["layers"], old.layers)} if old else {}
        layers: List[Filter] = []
        try:
            for layer in m["layers"]:
                f = have.get(layer["file"])
                if f is None:
                    f = self._open_layer(m, layer)
                layers.append(f)
        except BaseException:
            for f in layers:
                if f not in have.values():
                    f.close()
            raise
        return _View(gen, m, layers)

    def _open_layer(self, m: sm.Manifest, layer: dict) -> Filter:
        path = os.path.join(self.path, layer["file"])
        fd = open_file(path, os.O_RDWR if self.writable else os.O_RDONLY)
        f = Filter(fd, path, self.writable, exact_count=self._exact)
        h, bad = f.header, ""
        if h.version != V2:
            bad = "format v1.1, want v2"
        elif h.n != layer["n"] or h.p != layer["p"]:
            bad = f"n {h.n}, p {h.p}; {sm.MANIFEST} says n {layer['n']}, p {layer['p']}"
        elif h.seed != m["seed"]:
            bad = f"seed {h.seed}; {sm.MANIFEST} says {m['seed']}"
        if bad:
            f.close()
            raise errors.BadSet(f"set {self.path}: layer {layer['file']}: {bad}")
        return f

    # ---- changes under LOCK ------------------------------------------

    def _change(self, fn: Callable[[sm.Manifest], Tuple[List[str], bool]]) -> bool:
        """Go's changeDir: fn on the MANIFEST read under the exclusive LOCK
        (waiting for it); if it changed it, write the next generation,
        raise CONTROL's, unlink the dropped layers."""
        if not self.writable:
            self._refuse()
        fd = os.open(os.path.join(self.path, sm.LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            locks.wait_exclusive(fd, self.path)
            m = sm.read(self.path)
            self._raise(m["generation"])
            dropped, changed = fn(m)
            if not changed:
                return False
            m["generation"] += 1
            sm.write(self.path, m)
            self._raise(m["generation"])
            for name in dropped:
                try:
                    os.unlink(os.path.join(self.path, name))
                except FileNotFoundError:
                    pass
            return True
        finally:
            os.close(fd)

    def _grow(self, v: _View) -> _View:
        def fn(m: sm.Manifest) -> Tuple[List[str], bool]:
            last = m["layers"][-1]
            if last["file"] != v.m["layers"][-1]["file"]:
                return [], False  # another handle added a layer
            if sm.windowed(m) and sm.window_at(m, self.now()) > last["window"]:
                return [], False  # the window is over: the next write rotates
            add_layer(self.path, m, last["window"])
            return [], True
        self._change(fn)
        return self._current()

    def _rotate(self) -> bool:
        now = self.now()

        def fn(m: sm.Manifest) -> Tuple[List[str], bool]:
            cur = sm.window_at(m, now)
            if cur <= m["layers"][-1]["window"]:
                return [], False
            add_layer(self.path, m, cur)
            dropped = [l["file"] for l in m["layers"] if l["window"] <= cur - m["keep"]]
            m["layers"] = [l for l in m["layers"] if l["window"] > cur - m["keep"]]
            return dropped, True
        return self._change(fn)

    def rotate(self) -> bool:
        """Start the current window's layer of a windowed set and drop the
        expired ones, unless a handle did; whether it changed the set
        (Go: Set.Rotate). Writing calls rotate by themselves."""
        v = self._current()
        return sm.windowed(v.m) and self._rotate()

    def _writable(self, v: _View) -> _View:
        if not self.writable:
            self._refuse()
        if not sm.windowed(v.m) or self.now() < v.active_end:
            return v
        self._rotate()
        return self._current()

    def _refuse(self) -> None:
        if self._sealed:
            raise errors.Sealed(f"set {self.path}: sealed")
        raise errors.ReadOnly(f"set {self.path}: opened read-only")

    # ---- keys ---------------------------------------------------------

    def __contains__(self, key: object) -> bool:
        kb = key if type(key) is bytes else hashing.key_bytes(key)  # type: ignore[arg-type]
        v = self._current()
        if v.has is not None:  # the live layers' fused checks and probes
            has = v.live_probes(self.now())[0] if v.windowed else v.has
            return has(hashing.xxhash.xxh3_64_intdigest(kb, v.m["seed"]))
        live = v.live(self.now())
        for f in live:
            f._check()
        return any(f._test(kb) for f in reversed(live))

    def test(self, key: Key) -> bool:
        """True when key may be in a live layer, False when it is definitely absent."""
        return key in self

    def test_batch(self, keys: Iterable[Key]) -> List[bool]:
        """[key in self for key in keys], one generation check for the
        batch; the keys' pages in the live layers found cold requested
        ahead of their probes (_cold)."""
        kb = hashing.key_bytes
        raw = [k if type(k) is bytes else kb(k) for k in keys]
        v = self._current()
        now = self.now()
        live = list(reversed(v.live(now)))
        for f in live:
            f._check()
        if v.hashable:
            xxh, seed, has = hashing.xxhash.xxh3_64_intdigest, v.m["seed"], v.live_probes(now)[1]
            return read_ahead(live, raw, lambda part: list(map(has, (xxh(k, seed) for k in part))))
        return read_ahead(live, raw, lambda part: [any(f._test(k) for f in live) for k in part])

    def add(self, key: Key, always: bool = False) -> bool:
        """Add key and return whether it may have been present before
        (Go: TestAndAdd): a key no live layer holds goes to the newest
        layer, which grows the set when full. always=True is Go's Add on a
        windowed set: the key goes to the current window even when an
        older window holds it (so does every add with the set's refresh)."""
        return self._insert(key if type(key) is bytes else hashing.key_bytes(key), always)

    def add_batch(self, keys: Iterable[Key], always: bool = False) -> List[bool]:
        """[self.add(key, always) for key in keys], in chunks of CHUNK keys
        that each check the generation and the layers once (Go: the set's
        batch calls), each key hashed once for every blocked layer."""
        kb = hashing.key_bytes
        raw = [k if type(k) is bytes else kb(k) for k in keys]
        out: List[bool] = []
        while len(out) < len(raw):
            if not self._add_chunk(raw, out, always):
                out.append(self._insert(raw[len(out)], always))  # a layer to add
        return out

    def _add_chunk(self, keys: List[bytes], out: List[bool], add: bool) -> bool:
        """Add keys from len(out) on, up to CHUNK of them, appending each
        answer to out, on one view, with their pages in the live layers
        found cold requested ahead (_cold); stop (False) at a key that needs
        a new layer. Blocked layers take each key's xxh3 hash, computed
        once; a view with another layout, each layer the key itself."""
        v = self._writable(self._current())
        older, active = v.split(self.now())
        always = sm.windowed(v.m) and (add or v.m["refresh"])
        for f in older:
            f._check()
        active._check(True)
        chunk = keys[len(out):len(out) + CHUNK]
        held_layers = v.held(older, always)
        if v.hashable:
            end = len(v.layers) - 1  # older and the layers held are the layers just before the newest
            held, in_older = v.fused(end - len(held_layers), end)[1], v.fused(end - len(older), end)[1]
            add_to, in_active = active._add_hash, active._test_hash
            xxh, seed = hashing.xxhash.xxh3_64_intdigest, v.m["seed"]
            probed: Callable[[List[bytes]], Iterable[Any]] = lambda part: map(xxh, part, itertools.repeat(seed))
        else:
            held, in_older = partial(_any_has, held_layers, h=None), partial(_any_has, older, h=None)
            add_to, in_active, probed = active._add, active._test, iter
        cold = cold_reads(older + [active], len(chunk))  # the layers the chunk probes: the live ones
        for part in [chunk] if cold is None else _cold.steps(chunk, *cold):
            for h in probed(part):  # the key's xxh3 hash, or the key itself (a view not all blocked)
                if held(h):
                    out.append(True)
                elif v.full and not in_active(h):
                    return False
                elif v.full or add_to(h):
                    out.append(True)
                else:
                    active._counted(1)
                    self._note_adds(v, active)
                    out.append(in_older(h) if always else False)
        return True

    def update(self, keys: Iterable[Key]) -> None:
        """Add every key of an iterable."""
        self.add_batch(keys)

    def _insert(self, key: bytes, add: bool) -> bool:
        v = self._writable(self._current())
        now = self.now()
        older, active = v.split(now)
        always = sm.windowed(v.m) and (add or v.m["refresh"])
        for f in older:
            f._check()
        active._check(True)
        h = hashing.xxhash.xxh3_64_intdigest(key, v.m["seed"]) if v.hashable else None
        if _any_has(v.held(older, always), key, h):
            return True
        if v.full:
            if _any_has([active], key, h):
                return True
            v = self._grow(v)
            older, active = v.split(now)
            active._check(True)
            h = hashing.xxhash.xxh3_64_intdigest(key, v.m["seed"]) if v.hashable else None
        present = active._add_hash(h) if h is not None and active._add_hash is not None else active._add(key)
        if present:
            return True
        active._counted(1)
        self._note_adds(v, active)
        return _any_has(older, key, h) if always else False

    def _note_adds(self, v: _View, active: Filter) -> None:
        """Go's noteAdds: publish this handle's adds to the newest layer when
        due, so that every handle sees it fill."""
        if not sm.grows(v.m):
            return
        shared = active._count()
        v.adds += 1
        if shared + v.adds < v.capacity and v.adds < v.check_interval(shared):
            return
        v.adds = 0
        active._publish()
        if active._count() >= v.capacity:
            v.full = True

    def clear(self) -> None:
        """Set every layer's bits and count to 0, keeping the layers (a set
        that grew keeps its layers, a windowed set its windows). Needs
        every other handle on the set closed: raises InUse otherwise and
        clears nothing (each layer's lock is made exclusive before any is
        zeroed). A handle on a windowed set idle since every layer it had
        open was dropped holds none of the current ones and is not seen."""
        if not self.writable:
            self._refuse()
        v = self._current()
        with contextlib.ExitStack() as alone:
            for f in v.layers:
                alone.enter_context(f._held_alone(f"clear {self.path}"))
            for f in v.layers:
                f._zero()
        self._view = _View(v.gen, v.m, v.layers)  # not full any more

    # ---- information --------------------------------------------------

    def __len__(self) -> int:
        """The sum of the live layers' counts (Go: Set.Count)."""
        v = self._current()
        return sum(len(f) for f in v.live(self.now()))

    def count(self) -> int:
        return len(self)

    @property
    def layers(self) -> List[dict]:
        """The MANIFEST's layers, oldest first: file, n, p, window."""
        return [dict(l) for l in self._current().m["layers"]]

    @property
    def manifest(self) -> dict:
        """The current MANIFEST, decoded."""
        return dict(self._current().m)

    def sync(self) -> None:
        """Write every live layer to disk and wait."""
        for f in self._current().live(self.now()):
            f.sync()

    def close(self) -> None:
        """Close every layer and unmap CONTROL. Calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._view is not None:
            for f in self._view.layers:
                f.close()
        self._view = None
        if self._ctl is not None:
            self._ctl_words.release()
            self._ctl_buf = None
            self._ctl.close()
            self._ctl = None

    def __enter__(self) -> "FilterSet":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<mmapbloom.FilterSet {self.path!r} {'closed' if self._closed else ''}>"


def _layers_have(layers: List[Filter]) -> Tuple[Callable[[int], bool], Callable[[int], bool]]:
    """Two functions h -> whether a key of xxh3 hash h may be in one of the
    blocked layers, newest first. The first checks each layer as
    Filter._check does (one lseek for the file's size, three header words)
    just before reading its block, so a key found in the newest layer checks
    that layer alone (the layer's own _check, which raises the precise
    error, runs when one of them is off); the second checks nothing, for a
    batch that checked every layer once. The in-block probes of every layer
    come from one multiply for the largest k (hashing.blocked_lanes_of_hash)
    and are read one byte at a time: a layer is left at its first clear bit,
    so an absent key reads about two bytes of a half-full layer."""
    lanes = hashing.blocked_lanes_of_hash(max(f.header.k for f in layers))
    at, bit = hashing.LANE_BYTE, hashing.LANE_BYTE_BIT
    probes = [(f._mm, f.header.m // hashing.BLOCK_BITS, f.header.k) for f in reversed(layers)]
    checked = [(f._fd, f._size, f._words, f._want, f) + p for f, p in zip(reversed(layers), probes)]
    lseek, end, off0 = os.lseek, os.SEEK_END, HEADER_SIZE

    def has(h: int) -> bool:
        vs = lanes(h)
        for fd, size, words, want, f, mm, blocks, k in checked:
            if (f._closed or f._broken or lseek(fd, 0, end) < size
                    or words[0] != want[0] or words[7] != want[2] or words[3] != want[1]):
                f._check()
            off = (((h * blocks) >> 64) << 6) + off0
            for v in vs[:k]:
                if not mm[off + at[v]] & bit[v]:
                    break
            else:
                return True
        return False

    def has_unchecked(h: int) -> bool:
        vs = lanes(h)
        for mm, blocks, k in probes:
            off = (((h * blocks) >> 64) << 6) + off0
            for v in vs[:k]:
                if not mm[off + at[v]] & bit[v]:
                    break
            else:
                return True
        return False
    return has, has_unchecked


def _none(h: int) -> bool:
    """The probe of no layer."""
    return False


def _any_has(layers: List[Filter], key: bytes, h: Optional[int]) -> bool:
    for f in reversed(layers):
        if (f._test_hash(h) if h is not None else f._test(key)):
            return True
    return False


def add_layer(directory: str, m: sm.Manifest, window: int) -> None:
    """Create m's next layer file (for window window) and append it to m
    (Go: addLayer); a file at its name is a crashed change's orphan,
    removed first (the caller holds LOCK)."""
    n, p = sm.next_layer(m, window)
    name = sm.layer_name(m["next"])
    path = os.path.join(directory, name)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    layout = m["layout"] or None
    if layout == LAYOUT_BLOCKED512 and p < MIN_BLOCKED_P:
        layout = None
    create(path, n, p, layout=layout, seed=m["seed"]).close()
    entry = {"file": name, "n": n, "p": p}
    if sm.windowed(m):
        entry["window"] = window
    m["layers"].append(entry)
    m["next"] += 1


def new_manifest(n: int, p: float, window: Optional[float], keep: Optional[int], expansion: Optional[int],
                 tightening: Optional[float], refresh: bool, layout: Any, now: int) -> sm.Manifest:
    """Go's newManifest with SetOptions.check: the MANIFEST of a new set, without layers."""
    check_np(n, p)
    window_ns = int(round(window * 1e9)) if window else 0
    keep, expansion, tightening = keep or 0, expansion or 0, tightening or 0.0
    bad = ""
    if window_ns < 0 or 0 < window_ns < MIN_WINDOW_NS:
        bad = f"window {window} s: at least 1 s"
    elif keep > MAX_KEEP:
        bad = f"keep {keep} windows: at most {MAX_KEEP}"
    elif window_ns and window_ns * max(keep, 2) > (1 << 63) - 1:
        bad = f"window {window} s times keep {max(keep, 2)}: beyond 292 years"
    elif expansion > MAX_EXPANSION:
        bad = f"expansion {expansion}: at most {MAX_EXPANSION}"
    elif window_ns and not expansion and tightening:
        bad = "tightening of a windowed set needs an expansion (windows that grow)"
    elif not window_ns and (keep or refresh):
        bad = "keep and refresh are for windowed sets: give a window"
    elif keep < 0:
        bad = f"keep {keep} windows"
    elif not 0 <= tightening < 1:
        bad = f"tightening {tightening} not in (0, 1)"
    if bad:
        raise errors.InvalidArgument(bad)
    from .create import _id
    from .header import LAYOUT_NAMES
    m: sm.Manifest = {"version": sm.SET_VERSION, "generation": 1, "kind": sm.SCALABLE, "n": n, "p": float(p),
                      "layout": _id(layout, LAYOUT_NAMES, "layout"), "seed": int.from_bytes(secrets.token_bytes(8), "little"),
                      "expansion": 0, "tightening": 0.0, "window_ns": 0, "keep": 0, "t0_unix_ns": 0,
                      "refresh": False, "sealed": False, "next": 0, "layers": []}
    if not window_ns:
        m["expansion"], m["tightening"] = expansion or 2, tightening or 0.5
    else:
        m.update(kind=sm.WINDOWED, window_ns=window_ns, keep=keep or 2, refresh=bool(refresh), t0_unix_ns=now)
        if expansion:
            m["expansion"], m["tightening"] = expansion, tightening or 0.5
    return m


def create_set(directory: str, capacity: int, error_rate: float, *, window: Optional[float] = None,
               keep: Optional[int] = None, expansion: Optional[int] = None, tightening: Optional[float] = None,
               refresh: bool = False, layout: Any = None, now: Optional[Clock] = None,
               exact_count: bool = False) -> FilterSet:
    """Create a filter set in directory (conventionally NAME.bfset) and open
    it read-write, as Go's CreateSet: scalable (window None; expansion s,
    default 2; tightening r, default 0.5) starting with a layer of
    capacity keys at error_rate (1-r), or windowed (window in seconds, at
    least 1; keep W windows, default 2; refresh) with the current window's
    layer of capacity keys at error_rate/W. The directory is built under a
    temporary name beside it and renamed into place, whole. Raises
    FilterExists, InvalidArgument, and what create raises."""
    directory = os.path.normpath(os.fspath(directory))
    clock = now or time.time_ns
    m = new_manifest(capacity, error_rate, window, keep, expansion, tightening, refresh, layout, clock())
    if os.path.lexists(directory):
        raise errors.FilterExists(f"create set {directory}: file exists")
    parent, base = os.path.split(directory)
    tmp = tempfile.mkdtemp(prefix=f".{base}.tmp", dir=parent or ".")
    try:
        os.chmod(tmp, 0o755)
        add_layer(tmp, m, 0)
        sm.write(tmp, m)
        sm.write_synced(os.path.join(tmp, sm.CONTROL), sm.control_page(m["generation"]))
        sm.write_synced(os.path.join(tmp, sm.LOCK), b"")
        if os.path.lexists(directory):
            raise errors.FilterExists(f"create set {directory}: file exists")
        try:
            os.rename(tmp, directory)
        except OSError as e:
            if e.errno in (39, 17):  # ENOTEMPTY, EEXIST: another process made it meanwhile
                raise errors.FilterExists(f"create set {directory}: file exists") from None
            raise
        sm.sync_dir(parent or ".")
    except BaseException:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return FilterSet(directory, True, now=now, exact_count=exact_count)
