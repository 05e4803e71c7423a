"""redis-py's RedisCluster (Debian's python3-redis) across a failover of
`mmapbloom serve --replication jetstream` nodes.

Usage: python3 redis_cluster_failover.py PORT KEY[,KEY...] STOP_FILE.
One RedisCluster, made once with the node at PORT as its only startup
node (dynamic_startup_nodes=False: Debian's redis-py 4.3.4, on Python
3.11, fails to re-read the slots from a discovered node it has no
connection to yet, "cannot pickle '_thread.lock' object"), adds the items py-0, py-1, ... to every KEY
in turn (BF.ADD), 50 rounds a second at most, until STOP_FILE exists
(or 20,000 rounds). Prints one line per add as its reply comes:
"ok KEY ITEM" when acknowledged, "err KEY ITEM ERROR" when redis-py
gave up on it (a node killed: connection refused, CLUSTERDOWN...), so
the caller sees the adds before, during and after the failover.
"""
import os
import sys
import time

from redis.cluster import ClusterNode, RedisCluster


def main(port, keys, stop):
    rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", int(port))], dynamic_startup_nodes=False,
                      socket_timeout=30, socket_connect_timeout=5)
    for i in range(20000):
        if os.path.exists(stop):
            break
        for key in keys.split(","):
            item = "py-%d" % i
            try:
                rc.execute_command("BF.ADD", key, item)
                print("ok", key, item, flush=True)
            except Exception as e:  # the failover: redis-py gave up on this add
                print("err", key, item, type(e).__name__, str(e).replace("\n", " ")[:300], flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main(*sys.argv[1:4])
