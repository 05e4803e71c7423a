"""redis-py's RedisCluster (Debian's python3-redis) against three
`mmapbloom serve --cluster-config` nodes.

Usage: python3 redis_cluster_check.py PORT URLS_FILE. Adds every URL of
URLS_FILE (one a line) keyed by host (seen:{host}) through RedisCluster,
checks that a new RedisCluster finds every one, and that a plain client
sent to a node that does not own a key gets MOVED. Exits 0 and prints
"ok N" (N URLs) when every check passes; an assertion error otherwise.
"""
import sys

import redis
from redis.cluster import RedisCluster
from redis.exceptions import ResponseError


def host_key(url):
    rest = url.split("://", 1)[-1]
    for sep in "/?#":
        rest = rest.split(sep, 1)[0]
    return "seen:{" + rest[:190] + "}"


def main(port, path):
    with open(path) as f:
        urls = [line.rstrip("\n") for line in f]
    rc = RedisCluster(host="127.0.0.1", port=port)
    assert len(rc.get_nodes()) == 3, rc.get_nodes()
    pipe = rc.pipeline()
    for u in urls:
        pipe.execute_command("BF.ADD", host_key(u), u)
    added = pipe.execute()
    assert all(a in (0, 1) for a in added)
    rc.close()

    fresh = RedisCluster(host="127.0.0.1", port=port)
    pipe = fresh.pipeline()
    for u in urls:
        pipe.execute_command("BF.EXISTS", host_key(u), u)
    found = pipe.execute()
    assert found == [1] * len(urls), found.count(0)
    key = host_key(urls[0])
    assert fresh.execute_command("BF.EXISTS", key, urls[0]) == 1
    owner = fresh.get_node_from_key(key)
    other = next(n for n in fresh.get_nodes() if n.port != owner.port)
    try:
        redis.Redis(host="127.0.0.1", port=other.port).execute_command("BF.EXISTS", key, urls[0])
        raise AssertionError("no MOVED from the node that does not own the key")
    except ResponseError as e:  # a plain client does not parse MOVED
        assert str(e) == "MOVED %d 127.0.0.1:%d" % (fresh.keyslot(key), owner.port), str(e)
    print("ok", len(urls))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
