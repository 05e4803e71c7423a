"""BloomDupeFilter in one process: keyed by Scrapy's request fingerprint
(fragments canonicalized away, as Scrapy's RFPDupeFilter), shared by two
instances on one file, duplicates logged and counted in the stats as
RFPDupeFilter does, and its settings."""

import os
import unittest

from .common import TempDirTest, require_xxhash
from .test_scrapy_crawl import _need_scrapy

if not _need_scrapy():
    from scrapy import Request, Spider
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings
    from scrapy.utils.test import get_crawler

    from mmapbloom.scrapy import BloomDupeFilter, parse_window


@unittest.skipIf(_need_scrapy(), _need_scrapy())
@require_xxhash
class BloomDupeFilterTest(TempDirTest):
    def settings(self, **kw):
        base = {"MMAPBLOOM_PATH": self.path("seen.bloom"), "MMAPBLOOM_CAPACITY": 1000,
                "MMAPBLOOM_ERROR_RATE": 1e-9, "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7"}
        return {**base, **kw}

    def test_fingerprint_key(self):
        crawler = get_crawler(Spider, self.settings())
        df = BloomDupeFilter.from_crawler(crawler)
        other = BloomDupeFilter.from_crawler(get_crawler(Spider, self.settings()))
        self.assertFalse(df.request_seen(Request("http://a.test/p?b=2&a=1")))
        self.assertTrue(df.request_seen(Request("http://a.test/p?a=1&b=2#frag")), "canonical URL, no fragment")
        self.assertTrue(other.request_seen(Request("http://a.test/p?a=1&b=2")), "the other process's add")
        self.assertFalse(other.request_seen(Request("http://a.test/p", method="POST")))
        df.close("finished")
        other.close("finished")
        import mmapbloom
        with mmapbloom.open(self.path("seen.bloom")) as f:
            self.assertEqual((f.n, f.p, len(f)), (1000, 1e-9, 2))

    def test_log_and_stats(self):
        crawler = get_crawler(Spider, self.settings())
        spider = crawler._create_spider("s")
        crawler.spider = spider
        df = BloomDupeFilter.from_crawler(crawler)
        r = Request("http://a.test/")
        with self.assertLogs("mmapbloom.scrapy", "DEBUG") as logs:
            df.log(r, spider)
            df.log(r, spider)
        self.assertEqual(len(logs.records), 1, "no more duplicates shown, as RFPDupeFilter")
        self.assertIn("Filtered duplicate request", logs.output[0])
        self.assertEqual(crawler.stats.get_value("dupefilter/filtered"), 2)
        df.close("finished")

    def test_settings(self):
        for kw in ({"MMAPBLOOM_PATH": None}, {"MMAPBLOOM_URL": "redis://127.0.0.1:1"}):
            with self.subTest(kw=kw), self.assertRaises(NotConfigured):
                BloomDupeFilter.from_settings(Settings(self.settings(**kw)))
        BloomDupeFilter.from_settings(Settings(self.settings())).close("finished")
        with self.assertRaisesRegex(Exception, "capacity 2000 given, but the existing filter has capacity 1000"):
            BloomDupeFilter.from_settings(Settings(self.settings(MMAPBLOOM_CAPACITY=2000)))
        self.assertEqual([parse_window(v) for v in (None, 90, "90s", "30m", "24h", "1d", "1.5h")],
                         [None, 90.0, 90.0, 1800.0, 86400.0, 86400.0, 5400.0])
        with self.assertRaises(NotConfigured):
            parse_window("a week")
        self.assertTrue(os.path.exists(self.path("seen.bloom")))

    def test_set_form(self):
        path = self.path("seen.bfset")
        settings = self.settings(MMAPBLOOM_PATH=path, MMAPBLOOM_WINDOW="24h", MMAPBLOOM_KEEP=30)
        df = BloomDupeFilter.from_crawler(get_crawler(Spider, settings))
        other = BloomDupeFilter.from_crawler(get_crawler(Spider, settings))
        self.assertFalse(df.request_seen(Request("http://a.test/x")))
        self.assertTrue(other.request_seen(Request("http://a.test/x#y")))
        m = other.store.filter.manifest
        self.assertEqual((m["kind"], m["window_ns"], m["keep"], m["n"], m["p"]), ("windowed", 86400 * 10**9, 30, 1000, 1e-9))
        df.close("finished")
        other.close("finished")

    def test_from_spider(self):
        """scrapy-redis's scheduler builds DUPEFILTER_CLASS through from_spider."""
        crawler = get_crawler(Spider, self.settings())
        spider = crawler._create_spider("s")
        crawler.spider = spider
        df = BloomDupeFilter.from_spider(spider)
        self.assertFalse(df.request_seen(Request("http://a.test/")))
        df.close("finished")

    def test_persist_and_flush_on_start(self):
        """MMAPBLOOM_PERSIST = False clears the filter at close and
        MMAPBLOOM_FLUSH_ON_START = True at open, for a file and a set, only
        when no other handle holds it: else a warning and the filter kept."""
        import mmapbloom
        r = Request("http://a.test/x")
        for name in ("seen.bloom", "seen.bfset"):
            path = self.path(name)
            cases = [  # (settings, clears at open, clears at close)
                ({}, False, False),
                ({"MMAPBLOOM_PERSIST": False}, False, True),
                ({"MMAPBLOOM_PERSIST": "False"}, False, True),  # as `scrapy crawl -s` gives it
                ({"MMAPBLOOM_FLUSH_ON_START": True}, True, False),
            ]
            for kw, at_open, at_close in cases:
                for held in (False, True):
                    with self.subTest(name=name, kw=kw, held=held):
                        settings = self.settings(MMAPBLOOM_PATH=path, **kw)
                        seed = BloomDupeFilter.from_crawler(get_crawler(Spider, self.settings(MMAPBLOOM_PATH=path)))
                        seed.request_seen(r)
                        seed.close("finished")
                        other = mmapbloom.open(path) if held else None
                        with self.assertLogs("mmapbloom.scrapy", "INFO") as logs:
                            df = BloomDupeFilter.from_crawler(get_crawler(Spider, settings))
                            self.assertEqual(df.request_seen(r), held or not at_open)
                            df.close("finished")
                            df.logger.info("end")
                        if other is not None:
                            other.close()
                        with mmapbloom.open(path) as f:
                            self.assertEqual(df.fingerprinter.fingerprint(r) in f, held or not at_close)
                        kept = [l for l in logs.output if "not cleared, kept as it is" in l]
                        self.assertEqual(len(kept), int(held and (at_open or at_close)), logs.output)
                        if kept:
                            self.assertIn("in use by another process", kept[0])
                        cleared = [l for l in logs.output if f"cleared {path}" in l]
                        self.assertEqual(len(cleared), int(not held and (at_open or at_close)), logs.output)

    def test_clear(self):
        """clear() forgets every request and says whether it could."""
        crawler = get_crawler(Spider, self.settings())
        df = BloomDupeFilter.from_crawler(crawler)
        other = BloomDupeFilter.from_crawler(get_crawler(Spider, self.settings()))
        r = Request("http://a.test/")
        self.assertFalse(df.request_seen(r))
        with self.assertLogs("mmapbloom.scrapy", "WARNING"):
            self.assertFalse(df.clear(), "another crawler holds the file")
        self.assertTrue(df.request_seen(r))
        other.close("finished")
        self.assertTrue(df.clear())
        self.assertFalse(df.request_seen(r))
        df.close("finished")

    def test_spider_placeholder(self):
        """%(spider)s in MMAPBLOOM_PATH is the spider's name."""
        crawler = get_crawler(Spider, self.settings(MMAPBLOOM_PATH=self.path("%(spider)s.bloom")))
        crawler.spider = crawler._create_spider("books")
        BloomDupeFilter.from_crawler(crawler).close("finished")
        self.assertTrue(os.path.exists(self.path("books.bloom")))
        with self.assertRaisesRegex(NotConfigured, "needs the spider's name"):
            BloomDupeFilter.from_settings(Settings(self.settings(MMAPBLOOM_PATH=self.path("%(spider)s.bloom"))))
        self.assertFalse(os.path.exists(self.path("%(spider)s.bloom")))


class Killed(BaseException):
    """A kill -9 at a chosen point of request_seen: nothing after it runs."""


@unittest.skipIf(_need_scrapy(), _need_scrapy())
@require_xxhash
class JobdirJournalTest(TempDirTest):
    """The JOBDIR journal against a crawler killed at any point of
    request_seen: a request the shared filter marked seen is scheduled
    again by the restart, and one another crawler took is not."""

    def crawler(self):
        settings = {"MMAPBLOOM_PATH": self.path("seen.bloom"), "MMAPBLOOM_CAPACITY": 1000,
                    "MMAPBLOOM_ERROR_RATE": 1e-9, "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
                    "JOBDIR": self.path("job"), "SPIDER_MIDDLEWARES": {"mmapbloom.scrapy.BloomJournalMiddleware": 0}}
        crawler = get_crawler(Spider, settings)
        crawler.spider = crawler._create_spider("s")
        return crawler

    def kill(self, df):
        """What a kill leaves: the journal as written, no clean close."""
        df.journal.file.close()
        df.store.close()

    def pending_at_restart(self):
        """The URLs a restart with the same JOBDIR schedules again."""
        crawler = self.crawler()
        df = BloomDupeFilter.from_crawler(crawler)
        urls = [r.url for r in df.journal.requests(crawler.spider)]
        df.close("finished")
        return urls

    def test_killed_right_after_the_add(self):
        df = BloomDupeFilter.from_crawler(self.crawler())
        self.assertFalse(df.request_seen(Request("http://a.test/kept")))
        add = df.store.add

        def add_then_die(fp):
            add(fp)
            raise Killed

        df.store.add = add_then_die
        with self.assertRaises(Killed):
            df.request_seen(Request("http://a.test/marked-seen"))
        self.kill(df)
        self.assertEqual(sorted(self.pending_at_restart()), ["http://a.test/kept", "http://a.test/marked-seen"])

    def test_taken_by_another_crawler_between_test_and_add(self):
        df = BloomDupeFilter.from_crawler(self.crawler())
        other = BloomDupeFilter.from_crawler(self.crawler())
        r = Request("http://a.test/raced")
        test = df.store.test

        def test_then_other_adds(fp):
            absent = test(fp)
            other.store.add(fp)
            return absent

        df.store.test = test_then_other_adds
        self.assertTrue(df.request_seen(r), "the other crawler's")
        self.kill(df)
        other.store.close()
        self.assertEqual(self.pending_at_restart(), [])
