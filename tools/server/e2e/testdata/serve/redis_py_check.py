"""redis-py (Debian's python3-redis) against `mmapbloom serve`.

Usage: python3 redis_py_check.py PORT. Exits 0 and prints "ok" when every
check passes; an assertion error otherwise.
"""
import hashlib
import sys

import redis


def request_seen(server, key, url):
    """Scrapy-style dupefilter: scrapy-redis's RFPDupeFilter.request_seen
    with BF.ADD in place of SADD (1: new, 0: seen before)."""
    fp = hashlib.sha1(url.encode()).hexdigest()
    return server.execute_command("BF.ADD", key, fp) == 0


def main(port):
    r = redis.Redis(host="127.0.0.1", port=port)
    bf = r.bf()
    assert r.ping() is True

    assert bf.create("py", 0.001, 10000, noScale=True)
    assert bf.add("py", "a") == 1
    assert bf.add("py", "a") == 0
    assert bf.madd("py", "a", "b", "c") == [0, 1, 1]
    assert bf.insert("ins", ["x", "y", "x"], capacity=1000, error=0.01, noScale=True) == [1, 1, 0]
    assert bf.exists("py", "b") == 1
    assert bf.exists("missing", "b") == 0
    assert bf.mexists("py", "a", "c") == [1, 1]
    info = bf.info("py")
    assert info.capacity == 10000, info.capacity
    assert info.filterNum == 1
    assert info.insertedNum == 3
    assert info.expansionRate is None, info.expansionRate  # NONSCALING: nil, as RedisBloom
    assert info.size > 10000
    assert r.execute_command("BF.CARD", "py") == 3
    assert r.type("py") == b"MBbloom--"

    # copy "py" to "copy" through SCANDUMP / LOADCHUNK
    it = 0
    while True:
        it, data = bf.scandump("py", it)
        if it == 0:
            break
        bf.loadchunk("copy", it, data)
    assert bf.mexists("copy", "a", "b", "c") == [1, 1, 1]

    try:
        bf.create("py", 0.001, 10000, noScale=True)
        raise AssertionError("BF.RESERVE of an existing key succeeded")
    except redis.ResponseError as e:
        assert str(e) == "item exists", str(e)

    # without noScale: a scaling set, growing past its capacity
    assert bf.create("grow", 0.01, 1000)
    items = ["item-%d" % i for i in range(5000)]
    for i in range(0, len(items), 500):
        bf.madd("grow", *items[i:i + 500])
    info = bf.info("grow")
    assert info.filterNum >= 3, info.filterNum
    assert info.capacity >= 5000, info.capacity
    assert info.expansionRate == 2, info.expansionRate
    assert info.insertedNum == r.execute_command("BF.CARD", "grow")
    assert all(bf.mexists("grow", *items))

    # the windowed extension
    assert r.execute_command("MBF.RESERVEWINDOW", "win", 0.01, 1000, "WINDOW", 3600, "KEEP", 24) == b"OK"
    assert bf.add("win", "a") == 1
    info = bf.info("win")
    assert (info.filterNum, info.capacity, info.expansionRate) == (1, 1000, 0), vars(info)

    urls = ["https://example.com/page/%d" % i for i in range(2000)]
    assert not any(request_seen(r, "dupefilter", u) for u in urls)
    assert all(request_seen(r, "dupefilter", u) for u in urls)

    pipe = r.pipeline(transaction=False)
    for u in urls:
        pipe.execute_command("BF.EXISTS", "dupefilter", hashlib.sha1(u.encode()).hexdigest())
    assert pipe.execute() == [1] * len(urls)
    print("ok")


if __name__ == "__main__":
    main(int(sys.argv[1]))
