"""redis-py's own expiry helpers on mmapbloom serve: expire (with nx,
xx, gt, lt), pexpire, expireat, ttl, pttl, persist, expiretime.
Prints ok, or fails with an assertion."""
import sys
import time

import redis

r = redis.Redis(port=int(sys.argv[1]), socket_timeout=60)
r.execute_command("BF.RESERVE", "a", 0.01, 1000, "NONSCALING")
r.execute_command("BF.ADD", "a", "x")
r.execute_command("BF.ADD", "b", "y")
assert r.ttl("a") == -1
assert r.ttl("nosuch") == -2
assert r.expire("nosuch", 100) is False
assert r.expire("a", 100) is True
assert 99 <= r.ttl("a") <= 100, r.ttl("a")
assert 0 < r.pttl("a") <= 100000, r.pttl("a")
assert r.expire("a", 50, nx=True) is False
assert r.expire("a", 200, gt=True) is True
assert r.expire("a", 300, lt=True) is False
assert r.expire("b", 10, xx=True) is False
assert r.pexpire("b", 100000) is True
at = int(time.time()) + 3600
assert r.expireat("b", at) is True
assert r.execute_command("EXPIRETIME", "b") == at
assert r.persist("b") is True
assert r.persist("b") is False
assert r.ttl("b") == -1
assert r.expireat("a", 1) is True  # in the past: removed
assert r.exists("a") == 0
assert r.execute_command("BF.EXISTS", "a", "x") == 0
assert r.keys("*") == [b"b"]
print("ok")
