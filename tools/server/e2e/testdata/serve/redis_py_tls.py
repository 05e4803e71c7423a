"""redis-py over TLS (ssl=True, username=) as the crawler user of the
Go test TestServeTLSRedisPy: prints each reply, or the error's class and
text. Arguments: host port ca-file cert-file key-file."""
import sys

import redis

host, port, ca, cert, key = sys.argv[1:6]


def client(password):
    return redis.Redis(host=host, port=int(port), ssl=True, ssl_ca_certs=ca,
                       ssl_certfile=cert, ssl_keyfile=key, username="crawler",
                       password=password, socket_timeout=30)


def show(name, fn):
    try:
        print(name, fn())
    except redis.exceptions.RedisError as e:
        print(name, type(e).__name__, e)


r = client("crawlpw")
show("add", lambda: r.execute_command("BF.ADD", "seen:a", "x"))
show("exists", lambda: r.execute_command("BF.EXISTS", "seen:a", "x"))
show("other", lambda: r.execute_command("BF.ADD", "other", "x"))
show("loadchunk", lambda: r.execute_command("BF.LOADCHUNK", "seen:b", 1, "x"))
show("wrongpass", lambda: client("wrong").ping())
