"""BloomDupeFilter: a Scrapy DUPEFILTER_CLASS (Scrapy 2.7 and later) keyed
by Scrapy's request fingerprint, in a filter file or set on this host or
in a filter on a RESP server (`mmapbloom serve`, or Redis with
RedisBloom), shared by any number of Scrapy processes at once.

Settings (docs/python.md has the whole story)::

    DUPEFILTER_CLASS = "mmapbloom.scrapy.BloomDupeFilter"

    # file or set form: created by the first process, opened by the others
    MMAPBLOOM_PATH = "/var/lib/crawl/%(spider)s.bloom"  # or .bfset: a filter set
    MMAPBLOOM_CAPACITY = 10_000_000                 # n (a set: per layer / window)
    MMAPBLOOM_ERROR_RATE = 1e-6                     # p
    MMAPBLOOM_WINDOW = "24h"                        # sets: a windowed set (recrawl)
    MMAPBLOOM_KEEP = 30                             # sets: windows kept

    # server form
    MMAPBLOOM_URL = "redis://127.0.0.1:6379/0"      # or rediss://
    MMAPBLOOM_KEY = "seen"                          # default: %(spider)s:dupefilter

    # starting over (scrapy-redis's SCHEDULER_PERSIST, SCHEDULER_FLUSH_ON_START)
    MMAPBLOOM_PERSIST = True                        # False: clear the filter when the crawl closes
    MMAPBLOOM_FLUSH_ON_START = False                # True: clear it when the crawl opens

%(spider)s in MMAPBLOOM_PATH and MMAPBLOOM_KEY is the spider's name. A
file or set is cleared only when no other process holds it (its lock),
else the clear is logged and the filter kept; a server's key is deleted
whoever else uses it (one crawl at a time on a key you clear).

A request is marked seen when the scheduler is offered it (request_seen),
not when it is fetched; Scrapy's start requests reach the filter only
with dont_filter=False.
"""

import logging
import os
import re
from typing import Any, Optional

from scrapy import signals
from scrapy.dupefilters import BaseDupeFilter, RFPDupeFilter
from scrapy.exceptions import NotConfigured
from scrapy.utils.job import job_dir

from . import _install
from ._jobdir import REQUEUED, Journal
from .errors import InUse
from .opening import open_or_create

DEFAULT_CAPACITY = 10_000_000
DEFAULT_ERROR_RATE = 1e-6
SPIDER = "%(spider)s"  # in MMAPBLOOM_PATH and MMAPBLOOM_KEY: the spider's name
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_window(value: Any) -> Optional[float]:
    """MMAPBLOOM_WINDOW in seconds: a number of seconds, or a string such
    as "90s", "30m", "24h", "1d"; None when not set."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return float(value)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([smhd]?)\s*", str(value))
    if not m:
        raise NotConfigured(f"MMAPBLOOM_WINDOW {value!r}: give seconds or a duration such as 24h or 1d")
    return float(m.group(1)) * _UNITS[m.group(2) or "s"]


class _FileStore:
    """The filter file or set at a path, opened (or created) read-write."""

    def __init__(self, path: str, capacity: Optional[int], error_rate: Optional[float],
                 window: Optional[float], keep: Optional[int]):
        exists = os.path.exists(path)
        if not exists:
            capacity = DEFAULT_CAPACITY if capacity is None else capacity
            error_rate = DEFAULT_ERROR_RATE if error_rate is None else error_rate
        kw: dict = {}
        if window is not None or keep is not None:
            kw = dict(window=window, keep=keep)
        self.filter = open_or_create(path, capacity, error_rate, **kw)
        self.add, self.test = self.filter.add, self.filter.test
        self.name = path

    def clear(self) -> Optional[str]:
        """Empty the filter or set unless another process holds it: None
        when cleared, else why it was kept."""
        try:
            self.filter.clear()
        except InUse as e:
            return str(e)
        return None

    def close(self) -> None:
        self.filter.close()


class _ServerStore:
    """A filter on a RESP server, through redis-py: BF.INSERT creates it at
    the first add with the capacity and error rate (a server keeps an
    existing filter's), then tells whether the fingerprint was new."""

    def __init__(self, url: str, key: str, capacity: Optional[int], error_rate: Optional[float]):
        try:
            import redis
        except ImportError:
            raise NotConfigured("MMAPBLOOM_URL needs redis-py: " + _install.hint("redis", "python3-redis")) from None
        self.client = redis.Redis.from_url(url, socket_timeout=60)
        self.args = ("BF.INSERT", key, "CAPACITY", DEFAULT_CAPACITY if capacity is None else capacity,
                     "ERROR", DEFAULT_ERROR_RATE if error_rate is None else error_rate, "ITEMS")
        self.key, self.name = key, f"{url} key {key}"
        self.refused = redis.ResponseError

    def add(self, fp: bytes) -> bool:
        return self.client.execute_command(*self.args, fp)[0] == 0

    def test(self, fp: bytes) -> bool:
        return self.client.execute_command("BF.EXISTS", self.key, fp) == 1

    def clear(self) -> Optional[str]:
        """DEL the key (the next add creates it again): None when deleted
        or absent, else the server's error (mmapbloom serve refuses a key
        another process on its host holds open). The server cannot tell
        whether another crawl still uses the key."""
        try:
            self.client.delete(self.key)
        except self.refused as e:
            return str(e)
        return None

    def close(self) -> None:
        self.client.close()


class BloomDupeFilter(BaseDupeFilter):
    """A request filter of Scrapy (DUPEFILTER_CLASS) that keeps the
    fingerprints of the requests it was offered in a Bloom filter shared
    by every Scrapy process using the same MMAPBLOOM_PATH (or MMAPBLOOM_URL
    and MMAPBLOOM_KEY): request_seen adds the request's fingerprint (from
    the crawler's configured request fingerprinter) and says whether it
    was there before. A request never seen is taken for seen with the
    filter's false-positive probability (at most MMAPBLOOM_ERROR_RATE up
    to MMAPBLOOM_CAPACITY requests; a set grows or forgets to stay there).
    Duplicates are logged and counted in the stats (dupefilter/filtered)
    as by Scrapy's RFPDupeFilter, with DUPEFILTER_DEBUG as there."""

    def __init__(self, store: Any, fingerprinter: Any, debug: bool = False, persist: bool = True):
        self.store, self.fingerprinter = store, fingerprinter
        self.debug, self.logdupes, self.persist = debug, True, persist
        self.logger = logging.getLogger(__name__)
        self.journal: Optional[Journal] = None
        self.crawler: Any = None
        self.middleware = False

    @classmethod
    def from_crawler(cls, crawler: Any) -> "BloomDupeFilter":
        """Build the filter from the crawler's settings (the module doc
        lists them). With JOBDIR it keeps the journal of _jobdir.py there
        and, after an unclean end, schedules its pending requests again
        when the spider opens."""
        df = cls.from_settings(crawler.settings, fingerprinter=crawler.request_fingerprinter,
                               spider_name=getattr(getattr(crawler, "spider", None), "name", None))
        jobdir = job_dir(crawler.settings)
        if jobdir:
            df.crawler, df.journal = crawler, Journal(jobdir)
            if BloomJournalMiddleware.enabled(crawler.settings):
                df.middleware = True
            else:
                df.logger.warning("BloomDupeFilter: JOBDIR without SPIDER_MIDDLEWARES %s: a crawler killed "
                                  "loses the links of the responses it had not parsed yet",
                                  {_MIDDLEWARE: 0})
                crawler.signals.connect(df._fetched, signal=signals.response_received)
            crawler.signals.connect(df._requeue, signal=signals.spider_opened)
        return df

    @classmethod
    def from_spider(cls, spider: Any) -> "BloomDupeFilter":
        """The hook through which scrapy-redis's scheduler builds its
        dupefilter (DUPEFILTER_CLASS): from_crawler on the spider's crawler."""
        return cls.from_crawler(spider.crawler)

    def _fetched(self, response: Any, request: Any, spider: Any) -> None:
        self.done(request)

    def done(self, request: Any) -> None:
        """Record in the JOBDIR journal that request needs no fetch again:
        its response was parsed and every request it led to offered to the
        filter (BloomJournalMiddleware calls it), or it redirected."""
        if self.journal is not None:
            self.journal.fetched(self.fingerprinter.fingerprint(request))

    def _requeue(self, spider: Any) -> None:
        assert self.journal is not None
        requests = self.journal.requests(spider)
        if requests:
            self.logger.info("BloomDupeFilter: scheduling again %d requests pending in %s when the "
                             "crawler last stopped", len(requests), self.journal.path, extra={"spider": spider})
        for r in requests:
            self.crawler.engine.crawl(r)

    @classmethod
    def from_settings(cls, settings: Any, *, fingerprinter: Any = None,
                      spider_name: Optional[str] = None) -> "BloomDupeFilter":
        """Build the filter from settings, cleared first with
        MMAPBLOOM_FLUSH_ON_START (see clear); fingerprinter defaults to
        Scrapy's RequestFingerprinter with those settings. NotConfigured
        without MMAPBLOOM_PATH or MMAPBLOOM_URL, with both, or with
        %(spider)s in them and no spider_name."""
        if fingerprinter is None:
            from scrapy.utils.request import RequestFingerprinter
            fingerprinter = RequestFingerprinter()
        df = cls(_store(settings, spider_name), fingerprinter, settings.getbool("DUPEFILTER_DEBUG"),
                 settings.getbool("MMAPBLOOM_PERSIST", True))
        if settings.getbool("MMAPBLOOM_FLUSH_ON_START"):
            df.clear()
        return df

    def clear(self) -> bool:
        """Forget every request (the next crawl fetches every page again);
        whether it did. A file or set is cleared only when no other process
        holds it open (its lock: another crawler, a Go or Python handle),
        else the filter is kept and a warning logged; on a server the key
        is deleted, whoever else uses it. MMAPBLOOM_PERSIST = False calls
        it at close, MMAPBLOOM_FLUSH_ON_START = True at open, and
        scrapy-redis's scheduler with its SCHEDULER_PERSIST = False or
        SCHEDULER_FLUSH_ON_START = True."""
        why = self.store.clear()
        if why is not None:
            self.logger.warning("BloomDupeFilter: %s not cleared, kept as it is: %s", self.store.name, why)
            return False
        self.logger.info("BloomDupeFilter: cleared %s", self.store.name)
        return True

    def request_seen(self, request: Any) -> bool:
        """Add the request's fingerprint; True when it was (or tests) present before."""
        fp = self.fingerprinter.fingerprint(request)
        if self.journal is None:
            return self.store.add(fp)
        if request.meta.get(REQUEUED) == fp.hex():
            self.store.add(fp)  # the kill may have come between its journal line and the add
            return False  # scheduled again from the journal, where it is still pending
        # Journaled before the add that marks it seen, so that a kill between
        # the two loses nothing: the restart schedules it again.
        absent = not self.store.test(fp)
        if absent:
            self.journal.let_through(fp, request, self.crawler.spider)
        seen = self.store.add(fp)
        if absent and seen:
            self.journal.retract(fp)  # another crawler added it since the test: its request
        elif not absent and not seen:
            self.journal.let_through(fp, request, self.crawler.spider)  # a set's window expired since the test
        if request.meta.get("redirect_urls"):  # its source is done: this request took its place
            self.done(request.replace(url=request.meta["redirect_urls"][-1]))
        return seen

    def request_fingerprint(self, request: Any) -> str:
        """The request's fingerprint in hex, as RFPDupeFilter's."""
        return self.fingerprinter.fingerprint(request).hex()

    def close(self, reason: str) -> None:
        """Release the filter (its adds are in the shared file or on the
        server already), cleared first with MMAPBLOOM_PERSIST = False (see
        clear), and mark a clean end in the JOBDIR journal (Scrapy's queue,
        which it writes on close, holds the requests still to fetch)."""
        if self.journal is not None:
            self.journal.close()
        try:
            if not self.persist:
                self.clear()
        finally:
            self.store.close()

    # Scrapy's own logging of duplicates and its stats counter.
    log = RFPDupeFilter.log


_MIDDLEWARE = "mmapbloom.scrapy.BloomJournalMiddleware"


class BloomJournalMiddleware:
    """A spider middleware for crawls with JOBDIR and BloomDupeFilter:
    once a response's callback has yielded its last result (every request
    it led to offered to the filter and journaled), it records the
    response's request as done in the filter's JOBDIR journal, so a
    crawler killed before then fetches the page again after its restart
    instead of losing the links it had not yielded. Enable it with
    SPIDER_MIDDLEWARES = {"mmapbloom.scrapy.BloomJournalMiddleware": 0}
    (0: outermost, so it sees what every other middleware let through)."""

    def __init__(self, crawler: Any):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Any) -> "BloomJournalMiddleware":
        """Scrapy's constructor hook."""
        return cls(crawler)

    @staticmethod
    def enabled(settings: Any) -> bool:
        """Whether settings enable this middleware."""
        mws = settings.getwithbase("SPIDER_MIDDLEWARES")
        return mws.get(_MIDDLEWARE) is not None or mws.get(BloomJournalMiddleware) is not None

    def process_spider_output(self, response: Any, result: Any, spider: Any) -> Any:
        """Pass result on, then mark response.request done."""
        yield from result
        df = getattr(getattr(self.crawler.engine, "slot", None), "scheduler", None)
        df = getattr(df, "df", None)
        if isinstance(df, BloomDupeFilter):
            df.done(response.request)


def _spider(value: str, setting: str, spider_name: Optional[str]) -> str:
    """value with %(spider)s replaced by the spider's name."""
    if SPIDER not in value:
        return value
    if not spider_name:
        raise NotConfigured(f"{setting} {value!r}: {SPIDER} needs the spider's name (build the filter "
                            "with from_crawler)")
    return value.replace(SPIDER, spider_name)


def _store(settings: Any, spider_name: Optional[str]) -> Any:
    path, url = settings.get("MMAPBLOOM_PATH"), settings.get("MMAPBLOOM_URL")
    capacity = settings.getint("MMAPBLOOM_CAPACITY") if settings.get("MMAPBLOOM_CAPACITY") is not None else None
    rate = settings.getfloat("MMAPBLOOM_ERROR_RATE") if settings.get("MMAPBLOOM_ERROR_RATE") is not None else None
    if bool(path) == bool(url):
        raise NotConfigured("BloomDupeFilter needs one of MMAPBLOOM_PATH (a filter file or set on this host) "
                            "and MMAPBLOOM_URL (a redis:// or rediss:// server)")
    if url:
        key = settings.get("MMAPBLOOM_KEY")
        key = _spider(key, "MMAPBLOOM_KEY", spider_name) if key else f"{spider_name or 'scrapy'}:dupefilter"
        return _ServerStore(url, key, capacity, rate)
    keep = settings.getint("MMAPBLOOM_KEEP") if settings.get("MMAPBLOOM_KEEP") is not None else None
    return _FileStore(_spider(path, "MMAPBLOOM_PATH", spider_name), capacity, rate,
                      parse_window(settings.get("MMAPBLOOM_WINDOW")), keep)
