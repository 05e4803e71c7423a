"""create: a new filter file, sized and laid out as the Go library's Create
(mmapbloom/create.go), so that the same parameters and seed give a
byte-identical header."""

import errno
import os
import secrets
from typing import Any, Optional, Union

from . import errors, locks, sizing
from .filter import Filter, open_file
from .header import (HEADER_SIZE, LAYOUT_BLOCKED512, LAYOUT_CLASSIC, LAYOUT_NAMES, SCHEME_MURMUR_DOUBLE_V1,
                     SCHEME_MURMUR_SEEDS, SCHEME_NAMES, SCHEME_XXH3_BLOCKED, SCHEME_XXH3_REMIX, V1, V2,
                     new_header)

DEFAULT_CLASSIC_SCHEME = SCHEME_XXH3_REMIX  # decision 2 (issue 8): the default for new classic v2 files


def _id(value, names, what):
    if value is None:
        return 0
    if isinstance(value, str):
        for i, name in names.items():
            if name == value:
                return i
        raise errors.InvalidArgument(f"unknown {what} {value!r} (known: {', '.join(names.values())})")
    return int(value)


def _version(value):
    if value in (None, 2, "v2", "2"):
        return V2
    if value in (1, "v1", "v1.1", "1", "1.1"):
        return V1
    raise errors.InvalidArgument(f"unknown format version {value!r} (1 or 2)")


def _defaults(version, layout, scheme, n, p):
    """Go's withDefaults: the layout, scheme and rate to size for."""
    size_for = p
    if layout == 0:
        layout = LAYOUT_CLASSIC
        if version == V2 and scheme == 0:
            if sizing.blocked_pays(n, p):
                layout = LAYOUT_BLOCKED512
            else:
                size_for = sizing.with_margin(p)
    if scheme == 0:
        if version == V1:
            scheme = SCHEME_MURMUR_DOUBLE_V1
        elif layout == LAYOUT_BLOCKED512:
            scheme = SCHEME_XXH3_BLOCKED
        else:
            scheme = DEFAULT_CLASSIC_SCHEME
    return layout, scheme, size_for


def _size(version, layout, scheme, prime_m, n, p):
    if version == V1:
        return sizing.size_v1(n, p)
    if layout == LAYOUT_BLOCKED512:
        return sizing.optimal_blocked(n, p)
    if scheme == SCHEME_MURMUR_SEEDS:
        return sizing.size_seeds(n, p, prime_m)
    return sizing.optimal_classic(n, p)


def _seed(version, seed):
    if seed is None:
        s = int.from_bytes(secrets.token_bytes(8), "little")
        return s & 0xFFFFFFFF if version == V1 else s
    if not 0 <= seed < 1 << 64 or (version == V1 and seed >= 1 << 32):
        raise errors.InvalidArgument(f"seed {seed} does not fit format {'v1.1 (32-bit)' if version == V1 else 'v2'}")
    return seed


def create(path: "Union[str, os.PathLike[str]]", capacity: int, error_rate: float, *, layout: Any = None,
           scheme: Any = None, version: Any = 2, seed: Optional[int] = None, prime_m: bool = False,
           overwrite: bool = False, single_writer: bool = False, exact_count: bool = False) -> Filter:
    """Create a filter file at path for capacity keys at false-positive
    probability error_rate, and open it read-write.

    layout: "classic" or "blocked512" (default: blocked512 when error_rate
    >= 1e-6 and it takes at most 1.4 times the classic bits, else classic
    sized with Go's margin, 0.92 error_rate at small rates); scheme:
    "murmur2-double", "murmur2-seeds", "xxh3-remix" (the classic default),
    "xxh3-blocked"; version 1 writes the documents' v1.1 file. seed: a fixed
    hash seed (default: random). prime_m: round m up to a prime (scheme
    murmur2-seeds only). overwrite: replace an existing file that no other
    handle has open (else FilterExists). The sizing is Go's Create exactly.

    The file appears whole or not at all: it is built under a temporary
    name beside path, its disk space reserved, synced, then linked into
    place. Raises InvalidArgument, TooLarge, FilterExists, InUse, OSError.
    """
    sizing.check_np(capacity, error_rate)
    v = _version(version)
    lay, sch, size_for = _defaults(v, _id(layout, LAYOUT_NAMES, "layout"), _id(scheme, SCHEME_NAMES, "scheme"),
                                   capacity, error_rate)
    if prime_m and sch != SCHEME_MURMUR_SEEDS:
        raise errors.InvalidArgument("prime_m needs scheme murmur2-seeds")
    if v == V1 and (lay != LAYOUT_CLASSIC or sch != SCHEME_MURMUR_DOUBLE_V1):
        raise errors.InvalidArgument("format v1.1 has only the classic layout and scheme murmur2-double-v1")
    m, k = _size(v, lay, sch, prime_m, capacity, size_for)
    if lay == LAYOUT_BLOCKED512 and m % 512:
        raise errors.InvalidArgument(f"m = {m} (the blocked layout needs a multiple of 512)")
    hdr = new_header(v, lay, sch, k, float(error_rate), m, capacity, _seed(v, seed))
    return _build(os.fspath(path), hdr, overwrite, single_writer, exact_count)


def _build(path, hdr, overwrite, single_writer, exact_count):
    directory, base = os.path.split(path)
    directory = directory or "."
    data = hdr.encode()
    size = HEADER_SIZE + hdr.byte_size
    tmp, fd = _temp(directory, base)
    try:
        _reserve(fd, size)
        os.pwrite(fd, data, 0)
        os.fchmod(fd, 0o644)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        f = Filter(fd, tmp, True, single_writer=single_writer, exact_count=exact_count)  # closes fd on error
    except BaseException:
        os.unlink(tmp)
        raise
    try:
        _publish(tmp, path, overwrite)
    except BaseException:
        f.close()
        os.unlink(tmp)
        raise
    f.path = path
    return f


def _temp(directory, base):
    while True:
        tmp = os.path.join(directory, f".{base}.tmp{secrets.randbelow(10**9)}")
        try:
            return tmp, os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            continue


def _reserve(fd, size):
    """Allocate the file's blocks, so a full disk fails here, never as a
    SIGBUS on a later write; where fallocate is not supported, by writing
    zeros (as Go's Create)."""
    try:
        os.posix_fallocate(fd, 0, size)
    except OSError as e:
        if e.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
            raise
        zeros = bytes(min(size, 1 << 20))
        for off in range(0, size, len(zeros)):
            os.pwrite(fd, zeros[:size - off], off)


def _publish(tmp, path, overwrite):
    if overwrite:
        if os.path.isdir(path):
            raise errors.FilterExists(f"overwrite {path}: a directory")
        try:
            old = open_file(path, os.O_RDONLY)
        except FileNotFoundError:
            old = -1
        try:
            if old >= 0:
                locks.flock(old, locks.fcntl.LOCK_EX, path)
            os.rename(tmp, path)
        finally:
            if old >= 0:
                os.close(old)
    else:
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise errors.FilterExists(f"create {path}: file exists") from None
        os.unlink(tmp)
    dfd = os.open(os.path.dirname(path) or ".", os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
