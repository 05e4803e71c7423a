"""redis-py's RedisCluster(read_from_replicas=True) (Debian's
python3-redis) against a `mmapbloom serve` primary and its replica.

Usage: python3 redis_cluster_replica_check.py PORT N. Adds N URLs keyed by
host through RedisCluster (writes go to the primary), has the replica
pull (MBF.PULL), then reads every URL back through the replica's READONLY
connection that RedisCluster keeps (redis-py 4.3 sends only its own list
of read commands, which has no BF.*, to replicas by itself, so BF.EXISTS
is sent on that connection explicitly), and checks that EXISTS, which is
on that list, is answered by either node and that a plain connection to
the replica gets MOVED. Prints "ok N" when every check passes.
"""
import sys

import redis
from redis.cluster import RedisCluster
from redis.exceptions import ResponseError


def main(port, n):
    rc = RedisCluster(host="127.0.0.1", port=port, read_from_replicas=True)
    replicas = rc.get_replicas()
    assert len(rc.get_nodes()) == 2 and len(replicas) == 1, rc.get_nodes()
    urls = ["https://host%d.example/page/%d" % (i % 41, i) for i in range(n)]
    keys = ["seen:{host%d.example}" % (i % 41) for i in range(n)]
    pipe = rc.pipeline()
    for k, u in zip(keys, urls):
        pipe.execute_command("BF.ADD", k, u)
    assert all(a in (0, 1) for a in pipe.execute())

    replica = redis.Redis(host="127.0.0.1", port=replicas[0].port)
    assert replica.execute_command("MBF.PULL") == 41
    conn = rc.get_redis_connection(rc.get_node_from_key(keys[0], replica=True))
    assert conn.connection_pool.connection_kwargs["port"] == replicas[0].port
    pipe = conn.pipeline(transaction=False)
    for k, u in zip(keys, urls):
        pipe.execute_command("BF.EXISTS", k, u)
    found = pipe.execute()
    assert found == [1] * n, found.count(0)
    assert all(rc.exists(keys[0]) == 1 for _ in range(4))  # round-robin over both nodes
    try:
        replica.execute_command("BF.EXISTS", keys[0], urls[0])
        raise AssertionError("no MOVED without READONLY")
    except ResponseError as e:
        assert str(e).startswith("MOVED %d " % rc.keyslot(keys[0])), str(e)
    print("ok", n)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
