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
