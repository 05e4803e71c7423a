"""redis-py's own helpers on mmapbloom serve: rename, renamenx,
memory_usage, flushdb, flushall, and MBF.MERGE through execute_command.
Prints ok, or fails with an assertion."""
import sys

import redis

r = redis.Redis(port=int(sys.argv[1]), socket_timeout=60)
r.execute_command("BF.RESERVE", "a", 0.01, 1000, "NONSCALING")
r.execute_command("BF.RESERVE", "b", 0.01, 1000, "NONSCALING")
r.execute_command("BF.ADD", "a", "x")
r.execute_command("BF.ADD", "b", "y")
assert r.memory_usage("a") > 0
assert r.memory_usage("nosuch") is None
assert r.execute_command("MBF.MERGE", "a", "b") == b"OK"
assert r.execute_command("BF.EXISTS", "a", "y") == 1
assert r.rename("a", "c") is True
assert r.renamenx("c", "b") is False
assert r.renamenx("c", "d") is True
try:
    r.rename("a", "e")
    raise AssertionError("renamed a missing key")
except redis.ResponseError as e:
    assert str(e) == "no such key", str(e)
assert sorted(r.keys("*")) == [b"b", b"d"]
assert r.flushdb() is True
r.execute_command("BF.ADD", "f", "z")
assert r.flushall(asynchronous=True) is True
assert r.dbsize() == 0
print("ok")
