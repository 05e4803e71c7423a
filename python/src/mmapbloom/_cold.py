"""Cold batches (Go: mmapbloom/batch_cold.go). A page fault reads one
page and blocks the interpreter, so a batch on a filter whose pages are on
disk would wait on one read at a time: when the filter is cold, a batch
asks the kernel for the pages of its keys about COLD_PAGES pages ahead of
their probes (madvise MADV_WILLNEED, which queues the read and returns),
so that the reads are in flight together. Whether a filter is cold is a
sample of SAMPLES pages spread over the file (a one-byte read with
RWF_NOWAIT, which fails with EAGAIN for a page not in the page cache,
reading nothing), refreshed every RECHECK keys of batch calls while it is
in memory and every COLD_RECHECK while it is cold. A filter set decides
for each of its layer files on its own and requests a key's pages in its
cold layers alone (the pages of a key may lie in several mappings)."""

import mmap
import os
from typing import Any, Callable, Iterable, Iterator, List, Tuple

COLD_PAGES = 128
SAMPLES = 32
RECHECK = 1 << 18
COLD_RECHECK = 1 << 10
_PAGE = mmap.PAGESIZE
_CAN = hasattr(os, "RWF_NOWAIT") and hasattr(mmap, "MADV_WILLNEED")

# A key's reads: pairs of a mapping (an mmap.mmap) and the byte offset in
# it of a word or line the key's probes read.
PagesOf = Callable[[bytes], Iterable[Tuple[Any, int]]]


def resident(fd: int, size: int) -> bool:
    """Whether each of SAMPLES pages spread evenly over the first size
    bytes of the file fd is in the page cache; True where it cannot be
    asked (no RWF_NOWAIT, or a file system that refuses it), so that such
    a filter is never cold."""
    pages = size // _PAGE
    if not _CAN or pages == 0:
        return True
    buf = bytearray(1)
    for i in range(SAMPLES):
        try:
            os.preadv(fd, [buf], (i * pages // SAMPLES) * _PAGE, os.RWF_NOWAIT)
        except BlockingIOError:
            return False
        except OSError:
            return True
    return True


class Residency:
    """A filter's decision whether its batches request their pages ahead."""

    def __init__(self) -> None:
        self.budget = 0  # keys left before the next sample: the first batch samples
        self.cold = False

    def cold_for(self, n: int, is_resident: Callable[[], bool]) -> bool:
        """Charge a batch of n keys and tell whether it requests its pages
        ahead, sampling (is_resident) when the budget is spent."""
        self.budget -= n
        if self.budget < 0:
            self.cold = not is_resident()
            self.budget = COLD_RECHECK if self.cold else RECHECK
        return self.cold


def ahead(keys: List[bytes], pages_of: PagesOf, many: Callable[[List[bytes]], List[bool]],
          per_key: int) -> List[bool]:
    """many(keys), run on the steps of keys (steps), each after the pages
    of the next one were requested."""
    return [answer for part in steps(keys, pages_of, per_key) for answer in many(part)]


def steps(keys: List[bytes], pages_of: PagesOf, per_key: int) -> Iterator[List[bytes]]:
    """keys in steps whose keys touch about COLD_PAGES pages (per_key
    pages each, at least one key a step), each step yielded after the
    pages of the next one were requested (pages_of: where a key's probes
    read), so that a step's probes find their pages read or being read."""
    step = max(1, COLD_PAGES // per_key)
    _request(keys[:step], pages_of)
    for i in range(0, len(keys), step):
        _request(keys[i + step:i + 2 * step], pages_of)
        yield keys[i:i + step]


def _request(keys: List[bytes], pages_of: PagesOf) -> None:
    """Ask for the pages of keys, without waiting."""
    for key in keys:
        for mm, off in pages_of(key):
            will_need(mm, off)


def will_need(mm: Any, off: int) -> None:
    """Ask the kernel to read the page of the mapping mm (an mmap.mmap)
    holding byte off (madvise MADV_WILLNEED), without waiting; the tests
    replace it to see which pages a batch requests."""
    mm.madvise(mmap.MADV_WILLNEED, off - off % _PAGE, _PAGE)
