"""Pages per second of one `scrapy crawl` of the local test site (2,000
pages, tests/crawl_site.py) with BloomDupeFilter in file form against the
same crawl with Scrapy's own in-memory RFPDupeFilter, alternated; prints
each run and the medians. Pages/s = pages fetched / Scrapy's
elapsed_time_seconds.

usage: python3 python/bench_scrapy.py [--pairs 5]   (from the repository root)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
from tests.crawl_site import PAGES, Site  # noqa: E402
from tests.test_scrapy_crawl import write_project  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")


def crawl(proj, site, tmp, form):
    settings = {"scrapy": ["-s", "DUPEFILTER_CLASS=scrapy.dupefilters.RFPDupeFilter"],
                "bloom": ["-s", "DUPEFILTER_CLASS=mmapbloom.scrapy.BloomDupeFilter",
                          "-s", f"MMAPBLOOM_PATH={os.path.join(tmp, f'seen-{os.urandom(4).hex()}.bloom')}",
                          "-s", "MMAPBLOOM_CAPACITY=100000", "-s", "MMAPBLOOM_ERROR_RATE=1e-9"]}[form]
    before = sum(site.pages_fetched().values())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([proj, SRC]))
    out = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={site.url}/p/0.html",
                          "-s", "CONCURRENT_REQUESTS=16", *settings], cwd=proj, env=env, capture_output=True,
                         text=True, check=True).stderr
    elapsed = float(re.search(r"'elapsed_time_seconds': ([0-9.]+)", out).group(1))
    pages = sum(site.pages_fetched().values()) - before
    assert pages == PAGES, pages
    return pages / elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    proj = write_project(tmp)
    site = Site()
    rates = {"scrapy": [], "bloom": []}
    for i in range(a.pairs):
        for form in (("scrapy", "bloom") if i % 2 == 0 else ("bloom", "scrapy")):
            rates[form].append(crawl(proj, site, tmp, form))
            print(f"pair {i} {form}: {rates[form][-1]:.1f} pages/s", flush=True)
    s, b = statistics.median(rates["scrapy"]), statistics.median(rates["bloom"])
    print(f"median pages/s: RFPDupeFilter {s:.1f}, BloomDupeFilter (file) {b:.1f}, ratio {b / s:.3f}")
    site.stop()


if __name__ == "__main__":
    main()
