"""The pending journal of BloomDupeFilter in Scrapy's JOBDIR.

Scrapy writes its on-disk request queue's state (JOBDIR/requests.queue/
active.json) only when the crawl closes, so a crawler killed (kill -9, a
crash, the OOM killer) restarts with an empty queue. The requests it had
queued are marked seen in the shared filter all the same, so no crawler
would ever fetch them. The journal keeps them: a line ``+ FINGERPRINT
REQUEST`` (the request as Scrapy's disk queues pickle it) written before
the filter's add that marks a request seen (a request the filter tests
absent), ``~ FINGERPRINT`` when that add found it present after all
(another crawler added it since the test: its request), ``-
FINGERPRINT`` when its response was parsed (BloomJournalMiddleware) or
redirected, ``= closed`` when the crawl closed cleanly. A restart with
the same JOBDIR after an unclean end schedules the requests still
pending again (the filter lets each through once), so a page is fetched
at least once: those whose response was on its way when the crawler died
are fetched twice. What remains: without BloomJournalMiddleware, a
crawler killed while a callback was yielding a page's links loses the
links not yet yielded, which are not marked seen either, so another page
linking to them still brings them; and a key of a windowed set found
present by the test and new by the add (its window expired between the
two) is journaled after the add, so a kill in those microseconds loses
that recrawl (not a first crawl). After a clean close (the crawl
finished, or was paused and wrote its queue) the next run takes Scrapy's
own queue and the journal only keeps its pending requests for a later
kill."""

import base64
import logging
import os
import pickle
import time
from typing import Any, Dict, List, Tuple

from scrapy.utils.request import request_from_dict

JOURNAL = "mmapbloom-pending.log"
# The meta key of a request scheduled again from the journal: its
# fingerprint, which the filter lets through once (a redirect from it has
# another fingerprint and is filtered as usual).
REQUEUED = "mmapbloom_requeued"
CLEAN = b"= closed\n"  # the last line after a clean close
logger = logging.getLogger(__name__)


class Journal:
    """The journal in jobdir, read and compacted to its pending requests,
    then opened for appending. unclean tells whether the last crawl with
    this JOBDIR ended without closing (killed): then Scrapy's queue
    directory (requests.queue, whose state is written only on close and
    whose files a kill leaves half written, which queuelib cannot reopen)
    is moved aside to requests.queue.unclean-<ns>, and the pending
    requests are to be scheduled again."""

    def __init__(self, jobdir: str):
        self.path = os.path.join(jobdir, JOURNAL)
        self.pending, clean = _read(self.path)
        self.unclean = bool(self.pending) and not clean
        if self.unclean:
            queue = os.path.join(jobdir, "requests.queue")
            if os.path.exists(queue):
                os.rename(queue, f"{queue}.unclean-{time.time_ns()}")
        tmp = self.path + ".tmp"
        with open(tmp, "wb") as f:
            f.writelines(self.pending.values())
        os.replace(tmp, self.path)
        self.file = open(self.path, "ab", buffering=0)  # one write(2) per line: kill -9 loses none
        self.unpicklable = False

    def let_through(self, fp: bytes, request: Any, spider: Any) -> None:
        """Record that request (fingerprint fp) was marked seen and is queued."""
        try:
            data = pickle.dumps(request.to_dict(spider=spider), protocol=4)
        except (ValueError, TypeError, AttributeError, pickle.PicklingError) as e:
            if not self.unpicklable:
                logger.warning("BloomDupeFilter: %s cannot be kept in the JOBDIR journal (%s); "
                               "requests like it are lost if the crawler is killed", request, e)
                self.unpicklable = True
            return
        self.file.write(b"+ " + fp.hex().encode() + b" " + base64.b64encode(data) + b"\n")

    def retract(self, fp: bytes) -> None:
        """Take back the last let_through of fp: the filter's add found it
        present (another crawler added it after the test)."""
        self.file.write(b"~ " + fp.hex().encode() + b"\n")

    def fetched(self, fp: bytes) -> None:
        """Record that the request of fingerprint fp needs no fetch again."""
        self.file.write(b"- " + fp.hex().encode() + b"\n")

    def requests(self, spider: Any) -> List[Any]:
        """After an unclean end, the requests pending then, to schedule again."""
        out = []
        for fp, line in self.pending.items() if self.unclean else ():
            r = request_from_dict(pickle.loads(base64.b64decode(line.split(b" ", 2)[2])), spider=spider)
            r.meta[REQUEUED] = fp.decode()
            out.append(r)
        return out

    def close(self) -> None:
        """Mark a clean end (Scrapy writes its queue on close, and the
        next run takes it) and close the journal."""
        self.file.write(CLEAN)
        self.file.close()


def _read(path: str) -> Tuple[Dict[bytes, bytes], bool]:
    """The requests of the journal at path still pending (a "+" line not
    taken back by as many "~" lines, nor followed by a "-" line), by
    fingerprint, and whether it ends with a clean close's line."""
    pending: Dict[bytes, List[Any]] = {}  # fingerprint: [its last "+" line, "+" lines not taken back]
    line = CLEAN
    try:
        with open(path, "rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    break  # a line cut by the kill: the add after it did not run
                kind, fp = line[:1], line[2:].split(b" ", 1)[0].strip()
                if kind == b"+":
                    pending[fp] = [line, pending.get(fp, [b"", 0])[1] + 1]
                elif kind == b"~" and fp in pending:
                    pending[fp][1] -= 1
                    if pending[fp][1] == 0:
                        del pending[fp]
                elif kind == b"-":
                    pending.pop(fp, None)
    except FileNotFoundError:
        pass
    return {fp: p[0] for fp, p in pending.items()}, line == CLEAN
