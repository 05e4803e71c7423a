"""Filter: a Bloom filter file mapped into this process, shared with Go.

Reads and writes the files of the Go library (format/FORMAT.md) with the
same bit positions, the same atomic 64-bit OR on the shared mapping and the
same advisory locks, so Python and Go processes can add to and test one
file at once.
"""

import contextlib
import ctypes
import errno
import itertools
import math
import mmap
import os
import stat
import struct
import time
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple, Union

Key = Union[str, bytes, bytearray, memoryview]

from . import _cold, errors, hashing, locks
from . import atomics as _atomics
from .header import (HEADER_SIZE, LAYOUT_BLOCKED512, OFF_COUNT, V1, decode)
from .sizing import go_round


def open_file(path: str, flags: int) -> int:
    """os.open of a file the package opens by a caller's path, with
    O_NONBLOCK and O_CLOEXEC added: a FIFO (or another special file whose
    open waits for a peer) then opens at once and the caller's check that
    it is a regular file refuses it, where a plain open for reading would
    wait for a writer for ever (the Go library's mapping.OpenFile).
    O_NONBLOCK changes nothing for a regular file."""
    return os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC)

COUNT_BATCH = 256  # Go: countBatch, adds a handle counts before publishing them
_MASK64 = (1 << 64) - 1
_CHUNK = 1 << 20  # bytes per step of clear, union and approx_len
_CLAIM_BACKOFF = 50e-6  # s: Go's claimBackoff (mmapbloom/claim.go)
# int.bit_count is Python 3.10 and later.
_popcount: Any = getattr(int, "bit_count", None) or (lambda x: bin(x).count("1"))


class Filter:
    """A filter file opened with :func:`mmapbloom.open` or :func:`mmapbloom.create`.

    Keys are str (UTF-8) or bytes. Use as a context manager, or call
    close(). One Filter is not meant for use by several threads at once;
    open one per thread (any number of handles and processes may share a
    file).

    Attributes m (bits), k (probes per key), n (capacity, 0 when sized from
    m and k), p (false-positive probability asked for), seed, layout and
    scheme (ids of format/FORMAT.md) come from the header read at open.
    """

    def __init__(self, fd: int, path: str, writable: bool, single_writer: bool = False,
                 exact_count: bool = False):
        self._fd, self.path = fd, path
        self._mm: Any = None
        self._words: Any = None
        self._cbuf: Any = None
        self._test_hash: Any = None
        self._add_hash: Any = None
        self._closed = self._broken = False
        self._pending = 0
        self._exclusive = single_writer
        self._exact = exact_count
        self.writable, self.read_only = writable, not writable
        try:
            self._setup(writable, single_writer)
        except BaseException:
            self._closed = True
            self._release()
            raise

    def _setup(self, writable, single_writer):
        fd, path = self._fd, self.path
        locks.lock_shared(fd, path)
        if single_writer:
            locks.upgrade(fd, path)
        self._atomics = _atomics.load() if writable else None
        if writable and self._atomics is None and not single_writer:
            raise errors.NoAtomics(
                f"{path}: libatomic.so.1 not found (apt-get install libatomic1), so concurrent writes "
                "could lose bits; open with single_writer=True to write while holding the file alone")
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise errors.MmapBloomError(f"{path}: not a regular file")
        try:
            hdr = decode(os.pread(fd, HEADER_SIZE, 0))
            hdr.check_file_size(st.st_size)
        except errors.FormatError as e:
            raise type(e)(f"{path}: {e}") from None
        self.header = hdr
        self._size = HEADER_SIZE + hdr.byte_size
        if self._size > _address_space():
            raise errors.TooLarge(f"{path}: {self._size} bytes do not fit this platform's address space")
        self.m, self.k, self.n, self.p, self.seed = hdr.m, hdr.k, hdr.n, hdr.p, hdr.seed
        self.layout, self.scheme = hdr.layout, hdr.scheme
        self._count_calls = hdr.version == V1  # v1.1 counts add calls (Go: countCalls)
        self.blocked = hdr.layout == LAYOUT_BLOCKED512
        self._locate = hashing.locator(hdr.scheme, hdr.m, hdr.k, hdr.seed)
        if writable:
            _allocate_holes(fd, self._size)
        self._map(writable)
        # Go's checkHeader compares words 0, 3, 5 and 7; 5 is n in v2
        # (covered by the header crc in word 7) and reserved in v1.1.
        self._want = (self._words[0], self._words[3], self._words[7])
        self._nowrite = not writable or hdr.sealed
        self._test, self._test_many = self._tester()
        self._add, self._add_many = self._adder()
        self._residency = _cold.Residency()
        self._probes_per_key = 1 if self.blocked else hdr.k

    def _map(self, writable):
        access = mmap.ACCESS_WRITE if writable else mmap.ACCESS_READ
        self._mm = mmap.mmap(self._fd, self._size, access=access)
        if hasattr(mmap, "MADV_RANDOM"):
            self._mm.madvise(mmap.MADV_RANDOM)
        self._words = memoryview(self._mm).cast("Q")
        if writable:
            self._cbuf = ctypes.c_char.from_buffer(self._mm)
            self._addr = ctypes.addressof(self._cbuf)

    # pybloomfiltermmap3's names for the header fields.
    capacity = property(lambda self: self.n, doc="The capacity n the filter was sized for.")
    error_rate = property(lambda self: self.p, doc="The false-positive probability p asked for at n keys.")
    num_bits = property(lambda self: self.m, doc="Bits in the array, m.")
    num_hashes = property(lambda self: self.k, doc="Bit positions per key, k.")
    name = property(lambda self: self.path, doc="The file name.")

    # ---- guards -------------------------------------------------------

    def _check(self, write=False):
        """Refuse a call on a closed, broken, read-only or sealed handle, or
        when the file is now too short for the mapping (touching a page past
        its end would kill the interpreter with SIGBUS) or its header was
        rewritten. One lseek and three word compares per call."""
        if self._closed or self._broken or (write and self._nowrite):
            self._refuse(write)
        if os.lseek(self._fd, 0, os.SEEK_END) < self._size:
            self._broken = True
            raise errors.FileChanged(
                f"{self.path}: file is {os.fstat(self._fd).st_size} bytes, the mapping needs {self._size} "
                "(truncated or shrunk?)")
        words, want = self._words, self._want
        if words[0] != want[0] or words[7] != want[2] or words[3] != want[1]:
            self._broken = True
            raise errors.FileChanged(f"{self.path}: header rewritten while mapped")

    def _refuse(self, write):
        if self._closed:
            raise errors.Closed(f"{self.path}: filter is closed")
        if self._broken:
            raise errors.FileChanged(f"{self.path}: filter file changed while mapped")
        if not self.writable:
            raise errors.ReadOnly(f"{self.path}: filter opened read-only")
        raise errors.Sealed(f"{self.path}: filter is sealed")

    # ---- reading ------------------------------------------------------

    def locations(self, key: Key) -> List[int]:
        """The k bit positions of key in [0, m), in the hash scheme's order
        (Go: Filter.Locations). Reads nothing from the file."""
        return self._locate(hashing.key_bytes(key))

    def __contains__(self, key: object) -> bool:
        self._check()
        return self._test(key if type(key) is bytes else hashing.key_bytes(key))

    def test(self, key: Key) -> bool:
        """True when key may be present (false positive with probability
        about p at n keys), False when it is definitely absent."""
        return key in self

    def test_batch(self, keys: Iterable[Key]) -> List[bool]:
        """[key in self for key in keys], with one check of the file for the batch."""
        self._check()
        kb = hashing.key_bytes
        return self._batch(self._test_many, [key if type(key) is bytes else kb(key) for key in keys])

    def _batch(self, many, keys):
        """many(keys), with the keys' pages requested ahead when the filter
        is cold (_cold)."""
        return read_ahead([self], keys, many)

    def _cold_for(self, n: int) -> bool:
        """Charge this filter's residency with a batch of n keys and tell
        whether the batch requests its pages ahead (_cold.Residency)."""
        return self._residency.cold_for(n, lambda: _cold.resident(self._fd, self._size))

    def _probe_offsets(self, key: bytes) -> List[int]:
        """The byte offsets in the mapping of what key's probes read: one in
        its 64-byte line (blocked layout, whose probes share a line and so a
        page), or the word of each probe (classic); _probes_per_key of them.
        Reads nothing."""
        bits = self._locate(key)
        return [HEADER_SIZE + (p >> 6) * 8 for p in (bits[:1] if self.blocked else bits)]

    def _tester(self):
        """The functions key (bytes) -> bool and list of keys -> list of
        bools of this filter's layout."""
        mm, words, hdr = self._mm, self._words, self.header
        if self.blocked:
            xxh, seed = hashing.xxhash.xxh3_64_intdigest, hdr.seed
            probe = hashing.blocked_probe_of_hash(hdr.m, hdr.k)

            def test_hash(h):
                off, mask = probe(h)
                off += HEADER_SIZE
                return int.from_bytes(mm[off:off + 64], "little") & mask == mask
            self._test_hash = test_hash  # a key's xxh3 hash -> may be present (filter sets share it)
            return (lambda key: test_hash(xxh(key, seed)),
                    lambda keys: list(map(test_hash, map(xxh, keys, itertools.repeat(seed)))))
        locate = self._locate

        def test(key):
            for p in locate(key):
                if not (words[8 + (p >> 6)] >> (p & 63)) & 1:
                    return False
            return True
        return test, lambda keys: list(map(test, keys))

    def __len__(self) -> int:
        """The header count: adds that set at least one clear bit (in a v1.1
        file: add calls), over every process, this handle's own pending adds
        published first; after union, the estimate of the union (Go: Count)."""
        self._check()
        self._publish()
        return self._count()

    def count(self) -> int:
        """Same as len(self)."""
        return len(self)

    def _count(self):
        if self.header.version == V1:
            return struct.unpack_from("<I", self._mm, OFF_COUNT)[0]
        return self._words[1]

    def approx_len(self) -> Union[int, float]:
        """Estimated number of distinct keys from the set bits X:
        -(m/k) ln(1 - X/m), summed block by block for the blocked layout
        (Go: Stats.EstimatedCardinality), rounded; math.inf when every bit
        (of some block) is set. Reads the whole array: O(m)."""
        self._check()
        est = self._estimate()
        return est if math.isinf(est) else int(go_round(est))

    def _estimate(self):
        k, mm = float(self.k), self._mm
        if not self.blocked:
            x = sum(_popcount(int.from_bytes(mm[o:min(o + _CHUNK, self._size)], "little"))
                    for o in range(HEADER_SIZE, self._size, _CHUNK))
            m = float(self.m)
            return math.inf if x >= self.m else -m / k * math.log1p(-x / m)
        hist = [0] * 513
        for o in range(HEADER_SIZE, self._size, 64):
            hist[_popcount(int.from_bytes(mm[o:o + 64], "little"))] += 1
        if hist[512]:
            return math.inf
        return sum(c * (-512.0 / k * math.log1p(-float(s) / 512.0)) for s, c in enumerate(hist) if c)

    def fill_ratio(self) -> float:
        """Set bits / m (O(m))."""
        self._check()
        x = sum(_popcount(int.from_bytes(self._mm[o:min(o + _CHUNK, self._size)], "little"))
                for o in range(HEADER_SIZE, self._size, _CHUNK))
        return x / self.m

    # ---- writing ------------------------------------------------------

    def add(self, key: Key) -> bool:
        """Add key; return True when it was present before (every bit was
        already set, or set by another process after this call read them),
        False when this call claims it (one of its atomic ORs set a clear
        bit: of several processes adding it at once, almost always one
        only), and only then count it (Go: TestAndAdd; the count of a v1.1 file counts
        every add call, as Go's Add does there, document 003's count)."""
        self._check(True)
        present = self._add(key if type(key) is bytes else hashing.key_bytes(key))
        if not present or self._count_calls:
            self._counted(1)
        return present

    def update(self, keys: Iterable[Key]) -> None:
        """Add every key of an iterable."""
        self.add_batch(keys)

    def add_batch(self, keys: Iterable[Key]) -> List[bool]:
        """[self.add(key) for key in keys], with one check of the file and
        one count update for the batch."""
        self._check(True)
        kb = hashing.key_bytes
        out = self._batch(self._add_many, [key if type(key) is bytes else kb(key) for key in keys])
        self._counted(len(out) if self._count_calls else out.count(False))
        return out

    def _adder(self):
        """The functions key (bytes) -> present before, and list of keys ->
        list of those, that set the keys' bits and claim them as Go's
        TestAndAdd does (mmapbloom/claim.go): load every word of the key,
        OR (libatomic) in order those that lack some of its bits, and tell
        the key new by claim()'s rule, so that of several processes adding
        a new key at once one is told new (but for a process preempted
        between its ORs) and none loses it; a plain OR for a single
        writer without libatomic."""
        if not self.writable:
            return None, None
        mm, words, hdr = self._mm, self._words, self.header
        locate = self._locate
        if self._atomics is None:
            def add_plain(key):
                present = True
                for p in locate(key):
                    i, bit = 8 + (p >> 6), 1 << (p & 63)
                    if not words[i] & bit:
                        words[i] |= bit
                        present = False
                return present
            return add_plain, lambda keys: list(map(add_plain, keys))
        fetch_or, addr = self._atomics.fetch_or_8, self._addr

        def claim(lacking):
            """OR each (address, bits) in order; claim the key when the
            first OR set a clear bit, or, after waiting _CLAIM_BACKOFF for
            the process that set those bits to set the others, when a
            later OR still sets one (mmapbloom/claim.go gives the rule)."""
            word, part = lacking[0]
            won = fetch_or(word, part, 5) & part != part
            if not won:
                time.sleep(_CLAIM_BACKOFF)
            for word, part in lacking[1:]:
                if fetch_or(word, part, 5) & part != part:
                    won = True
            return won
        if self.blocked:
            xxh, seed = hashing.xxhash.xxh3_64_intdigest, hdr.seed
            probe = hashing.blocked_probe_of_hash(hdr.m, hdr.k)
            line = struct.Struct("<8Q")
            parts_of, cur_of = line.unpack, line.unpack_from

            def add_hash(h):
                off, mask = probe(h)
                off += HEADER_SIZE
                if int.from_bytes(mm[off:off + 64], "little") & mask == mask:
                    return True
                at = addr + off
                lacking = [(at + 8 * w, part) for w, (part, cur) in
                           enumerate(zip(parts_of(mask.to_bytes(64, "little")), cur_of(mm, off))) if part & ~cur]
                return not lacking or not claim(lacking)
            self._add_hash = add_hash  # a key's xxh3 hash -> present before (filter sets share it)
            return (lambda key: add_hash(xxh(key, seed)),
                    lambda keys: list(map(add_hash, map(xxh, keys, itertools.repeat(seed)))))

        def add_classic(key):
            lacking = [(addr + ((8 + (p >> 6)) << 3), 1 << (p & 63)) for p in locate(key)
                       if not words[8 + (p >> 6)] & (1 << (p & 63))]
            return not lacking or not claim(lacking)
        return add_classic, lambda keys: list(map(add_classic, keys))

    def _counted(self, delta):
        if delta:
            self._pending += delta
            if self._exact or self._pending >= COUNT_BATCH:
                self._publish()

    def _publish(self):
        delta, self._pending = self._pending, 0
        if not delta:
            return
        if self.header.version == V1:
            if self._atomics is None:
                old = struct.unpack_from("<I", self._mm, OFF_COUNT)[0]
                struct.pack_into("<I", self._mm, OFF_COUNT, min(old + delta, 0xFFFFFFFF))
            else:
                self._atomics.add_saturating_32(self._addr + OFF_COUNT, delta)
        elif self._atomics is None:
            self._words[1] = (self._words[1] + delta) & _MASK64
        else:
            self._atomics.fetch_add_8(self._addr + OFF_COUNT, delta, 5)

    def _store_count(self, c):
        self._pending = 0
        if self.header.version == V1:
            struct.pack_into("<I", self._mm, OFF_COUNT, min(c, 0xFFFFFFFF))
        else:
            self._words[1] = min(c, _MASK64)

    def sync(self) -> None:
        """Write the mapped bits and header to disk and wait (msync, fsync)."""
        self._check()
        self._publish()
        self._mm.flush()
        os.fsync(self._fd)

    # ---- exclusive operations ----------------------------------------

    @contextlib.contextmanager
    def _held_alone(self, what: str) -> Iterator[None]:
        """The file's OFD lock converted to exclusive for the with block
        (InUse when another handle, Go or Python, holds the file), then
        back to shared."""
        self._check(True)
        if self._exclusive:
            yield
            return
        try:
            locks.upgrade(self._fd, self.path)
        except errors.InUse as e:
            raise errors.InUse(f"{what}: {e}") from None
        try:
            yield
        finally:
            locks.downgrade(self._fd, self.path)

    def _alone(self, what, op):
        """Run op under _held_alone."""
        with self._held_alone(what):
            return op()

    def clear(self) -> None:
        """Set every bit and the count to 0. Needs every other handle on the
        file closed: raises InUse otherwise (Go: Clear)."""
        self._alone("clear", self._zero)

    def _zero(self) -> None:
        """clear's work, under _held_alone."""
        zero = bytes(_CHUNK)
        for o in range(HEADER_SIZE, self._size, _CHUNK):
            n = min(_CHUNK, self._size - o)
            self._mm[o:o + n] = zero[:n]
        self._store_count(0)

    def union(self, other: "Filter") -> "Filter":
        """OR the bits of other into this filter, which then answers present
        for every key either held. Both need the same m, k, layout, scheme
        and seed (Mismatch); this filter needs every other handle on its file
        closed (InUse); other may be shared. The count becomes the bit-based
        cardinality estimate of the union, rounded, at most the sum of the
        two counts (a v1.1 file: the sum), as Go's Merge sets it."""
        if other is self:
            raise errors.Mismatch(f"union of {self.path} with itself")
        for name in ("m", "k", "layout", "scheme", "seed"):
            if getattr(self, name) != getattr(other, name):
                raise errors.Mismatch(
                    f"union: {name} differs: source {other.path} has {getattr(other, name)}, "
                    f"destination {self.path} has {getattr(self, name)}")

        def op():
            other._check()
            for o in range(HEADER_SIZE, self._size, _CHUNK):
                e = min(o + _CHUNK, self._size)
                src = int.from_bytes(other._mm[o:e], "little")
                if src:
                    self._mm[o:e] = (int.from_bytes(self._mm[o:e], "little") | src).to_bytes(e - o, "little")
            self._publish()
            if other.writable:
                other._publish()
            total = self._count() + other._count()
            est = math.inf if self._count_calls else go_round(self._estimate())
            self._store_count(int(est) if est < float(total) else total)
        self._alone("union into", op)
        return self

    __ior__ = union

    # ---- closing ------------------------------------------------------

    def close(self) -> None:
        """Publish this handle's pending adds to the header count, unmap the
        file and close it, releasing its locks. Calling it again does nothing."""
        if self._closed:
            return
        try:
            if self._pending and not self._broken:
                try:
                    self._check()
                    self._publish()
                except errors.FileChanged:
                    pass
        finally:
            self._closed = True
            self._release()

    def _release(self):
        self._words = self._words.release() if self._words is not None else None
        self._cbuf = None
        if self._mm is not None:
            self._mm.close()
            self._mm = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "Filter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        state = "closed" if self._closed else ("rw" if self.writable else "r")
        return (f"<mmapbloom.Filter {self.path!r} {state} m={self.m} k={self.k} "
                f"layout={self.layout} scheme={self.scheme}>")


def read_ahead(layers: List[Filter], keys: List[bytes], many: Callable[[List[bytes]], List[bool]]) -> List[bool]:
    """many(keys), a batch that probes layers (a filter, or the layers of a
    set), with each key's pages in the layers that are cold requested ahead
    of its probes (_cold.ahead); many(keys) alone when every layer is warm."""
    cold = cold_reads(layers, len(keys))
    return many(keys) if cold is None else _cold.ahead(keys, cold[0], many, cold[1])


def cold_reads(layers: List[Filter], n: int) -> Optional[Tuple[_cold.PagesOf, int]]:
    """Charge each of layers with a batch of n keys (Filter._cold_for);
    for the layers that are cold, the function key -> (mapping, byte
    offset) of each of its probes' reads in them, and how many a key has;
    None when every layer is warm."""
    cold = [f for f in layers if f._cold_for(n)]
    if not cold:
        return None
    return (lambda key: [(f._mm, off) for f in cold for off in f._probe_offsets(key)],
            sum(f._probes_per_key for f in cold))


def _allocate_holes(fd, size):
    """Give a sparse file's holes their disk blocks before any write, so a
    full disk raises OSError (ENOSPC) here instead of SIGBUS on a write
    through the mapping (Go's Open does the same). One SEEK_HOLE when the
    file has none; where fallocate is not supported the holes stay."""
    try:
        if os.lseek(fd, 0, os.SEEK_HOLE) >= size:
            return
        os.posix_fallocate(fd, 0, size)
    except OSError as e:
        if e.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL, errno.ENXIO):
            raise


def _address_space():
    return (1 << 63) - 1 if struct.calcsize("P") == 8 else 1 << 31
