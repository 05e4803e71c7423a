"""open and open_or_create: a filter file, or a filter set's directory.

open_or_create is the call for many workers starting at once on a filter
that may not exist yet: the first creates it (a file appears by link, a
set's directory by rename, each complete), the others find it exists and
open what the winner made. On an existing filter, arguments given
explicitly must match its header (a set's: its MANIFEST); arguments not
given come from it."""

import os
from typing import Any, Callable, Dict, Optional, Union

from . import errors
from . import create as _create
from .create import _id, _version
from .filter import Filter, open_file
from .fset import FilterSet, create_set
from .header import LAYOUT_NAMES, SCHEME_NAMES, V1

PathLike = Union[str, "os.PathLike[str]"]


def open(path: PathLike, mode: str = "r", *, single_writer: bool = False,  # noqa: A001 (pybloomfiltermmap3's name)
         exact_count: bool = False, now: Any = None) -> Any:
    """Open the filter file at path: mode "r" (read-only) or "rw".

    It reads and validates the 64-byte header (magic, version, CRC-32C,
    layout, scheme, k, sizes, the file long enough) and maps the file; it
    reads nothing of the bit array. The handle holds a shared advisory lock
    until close, so Go's Seal, Clear and Merge refuse while it is open.

    "rw" needs libatomic.so.1 for the atomic OR (NoAtomics otherwise), unless
    single_writer=True: then the handle holds the file's exclusive lock
    until close (InUse if anyone else has it open; others are refused while
    it holds it) and writes without atomics. exact_count=True adds every
    add to the header count at once instead of in groups of 256.

    A directory is opened as a filter set (FilterSet; now: its clock,
    a function returning Unix time in ns). Raises OSError
    (FileNotFoundError, PermissionError), a FormatError subclass, BadSet,
    InUse, NoAtomics, TooLarge.
    """
    if mode not in ("r", "rw"):
        raise ValueError(f'mode must be "r" or "rw", not {mode!r}')
    path = os.fspath(path)
    writable = mode == "rw"
    if os.path.isdir(path):
        return FilterSet(path, writable, now=now, exact_count=exact_count)
    fd = open_file(path, os.O_RDWR if writable else os.O_RDONLY)
    return Filter(fd, path, writable, single_writer=single_writer, exact_count=exact_count)


def open_or_create(path: PathLike, capacity: Optional[int] = None, error_rate: Optional[float] = None, *,
                   layout: Any = None, scheme: Any = None, version: Any = None, seed: Optional[int] = None,
                   single_writer: bool = False, exact_count: bool = False, window: Optional[float] = None,
                   keep: Optional[int] = None, expansion: Optional[int] = None, tightening: Optional[float] = None,
                   refresh: Optional[bool] = None, now: Any = None) -> Any:
    """Open the filter file at path read-write, creating it with create's
    sizing when it does not exist (capacity and error_rate are then
    required: InvalidArgument without them). Any number of processes may
    call it at once: one creates the file, the others open it once it is
    complete (it appears by link, whole).

    On an existing file every argument given (not None) must equal its
    header's value, else Mismatch naming both (capacity: n; error_rate: p;
    layout, scheme, version, seed); the others come from the file. Raises
    what open and create raise.
    """
    path = os.fspath(path)
    if is_set_path(path, window, keep, expansion, tightening, refresh):
        return _set_open_or_create(path, capacity, error_rate, layout, exact_count, now,
                                   dict(window=window, keep=keep, expansion=expansion, tightening=tightening,
                                        refresh=refresh))
    given = dict(capacity=capacity, error_rate=error_rate, layout=layout, scheme=scheme, version=version, seed=seed)
    try:
        f = open(path, "rw", single_writer=single_writer, exact_count=exact_count)
    except FileNotFoundError:
        if capacity is None or error_rate is None:
            raise errors.InvalidArgument(
                f"open_or_create {path}: no such file; give capacity and error_rate to create it") from None
        try:
            return _create.create(path, capacity, error_rate, layout=layout, scheme=scheme,
                          version=2 if version is None else version, seed=seed,
                          single_writer=single_writer, exact_count=exact_count)
        except errors.FilterExists:
            f = open(path, "rw", single_writer=single_writer, exact_count=exact_count)
    try:
        check_given(path, given, _header_values(f))
    except BaseException:
        f.close()
        raise
    return f


def create(path: PathLike, capacity: int, error_rate: float, *, window: Optional[float] = None,
           keep: Optional[int] = None, expansion: Optional[int] = None, tightening: Optional[float] = None,
           refresh: Optional[bool] = None, now: Any = None, **kw: Any) -> Any:
    """Create a filter file (mmapbloom.create.create: layout, scheme,
    version, seed, prime_m, overwrite, single_writer, exact_count) or, for
    a path ending .bfset or with window, keep, expansion, tightening or
    refresh given, a filter set (fset.create_set: layout, exact_count),
    and open it read-write."""
    path = os.fspath(path)
    if is_set_path(path, window, keep, expansion, tightening, refresh):
        return create_set(path, capacity, error_rate, window=window, keep=keep, expansion=expansion,
                          tightening=tightening, refresh=bool(refresh), now=now, **kw)
    return _create.create(path, capacity, error_rate, **kw)


def is_set_path(path: str, *set_args: Any) -> bool:
    """Whether path names a filter set: an existing directory, a name
    ending .bfset, or set arguments given (a file named otherwise with
    them is refused: InvalidArgument)."""
    if os.path.isdir(path) or path.rstrip("/").endswith(".bfset"):
        return True
    if any(a is not None for a in set_args):
        raise errors.InvalidArgument(f"{path}: window, keep, expansion, tightening and refresh make a filter set: "
                                     f"name it {os.path.splitext(path)[0]}.bfset")
    return False


def _set_open_or_create(path: str, capacity: Optional[int], error_rate: Optional[float], layout: Any,
                        exact_count: bool, now: Any, opts: dict) -> FilterSet:
    try:
        s = FilterSet(path, True, now=now, exact_count=exact_count)
    except FileNotFoundError:
        if capacity is None or error_rate is None:
            raise errors.InvalidArgument(
                f"open_or_create {path}: no such set; give capacity and error_rate to create it") from None
        try:
            return create_set(path, capacity, error_rate, layout=layout, now=now, exact_count=exact_count,
                              **{k: v for k, v in opts.items() if v is not None})
        except errors.FilterExists:
            s = FilterSet(path, True, now=now, exact_count=exact_count)
    try:
        m = s.manifest
        have = dict(capacity=m["n"], error_rate=m["p"], layout=m["layout"],
                    window=m["window_ns"] / 1e9 if m["window_ns"] else None, keep=m["keep"] or None,
                    expansion=m["expansion"] or None, tightening=m["tightening"] or None, refresh=m["refresh"])
        check_given(path, dict(capacity=capacity, error_rate=error_rate, layout=layout, **opts), have)
    except BaseException:
        s.close()
        raise
    return s


def _header_values(f: Filter) -> dict:
    """The values open_or_create's arguments are checked against, in the
    arguments' terms."""
    hdr = f.header
    return dict(capacity=hdr.n, error_rate=hdr.p, layout=hdr.layout, scheme=hdr.scheme,
                version=hdr.version, seed=hdr.seed)


_NORMALIZE: Dict[str, Callable[[Any], Any]] = {
    "layout": lambda v: _id(v, LAYOUT_NAMES, "layout"),
    "scheme": lambda v: _id(v, SCHEME_NAMES, "scheme"),
    "version": _version,
}
_SHOW: Dict[str, Callable[[Any], Any]] = {"layout": LAYOUT_NAMES.get, "scheme": SCHEME_NAMES.get,
         "version": lambda v: "1.1" if v == V1 else str(v)}


def _same(v: Any) -> Any:
    return v


def check_given(path: str, given: dict, have: dict) -> None:
    """Raise Mismatch for the first argument given (not None) that differs
    from the existing filter's value, naming both."""
    for name, value in given.items():
        if value is None:
            continue
        want = _NORMALIZE.get(name, _same)(value)
        if want != have[name]:
            show = _SHOW.get(name, _same)
            raise errors.Mismatch(f"open_or_create {path}: {name} {show(want)} given, "
                                  f"but the existing filter has {name} {show(have[name])}")
