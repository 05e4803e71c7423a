"""docs/cluster.md's redis-py RedisCluster example (Debian's python3-redis)
through the loss of its startup node.

Usage: python3 redis_cluster_docs_example.py DOC PORT1 PORT2 PORT3.
Runs the first Python block of DOC that makes a RedisCluster, with the
doc's ports 7001, 7002, 7003 replaced by PORT1..3, then adds to a key of
each node's slots (bar: slot 5061, node 1; seen:{example.com}: 8592,
node 2; somekey: 11058, node 3) through the example's client rc, prints
"ready" and waits for a line on stdin (the caller kills node 1 meanwhile
and gives its slots to node 2), then adds to the three keys again with
the same client. Prints one line per add: "ok KEY REPLY", or "err KEY
EXCEPTION MESSAGE" when redis-py gave up on it.
"""
import re
import sys

KEYS = ["bar", "seen:{example.com}", "somekey"]


def example(doc, ports):
    with open(doc) as f:
        text = f.read()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "RedisCluster" in b)
    for i, port in enumerate(ports):
        block = block.replace(str(7001 + i), port)
    return block


def add_each(rc, item):
    for key in KEYS:
        try:
            print("ok", key, rc.execute_command("BF.ADD", key, item), flush=True)
        except Exception as e:  # redis-py gave up on this add
            print("err", key, type(e).__name__, str(e).replace("\n", " ")[:300], flush=True)


def main(doc, *ports):
    scope = {}
    exec(example(doc, ports), scope)  # the doc's example, as a reader pastes it
    rc = scope["rc"]
    add_each(rc, "before")
    print("ready", flush=True)
    sys.stdin.readline()
    add_each(rc, "after")


if __name__ == "__main__":
    main(*sys.argv[1:5])
