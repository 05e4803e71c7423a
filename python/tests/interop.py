"""Python's side of the Go tests in mmapbloom/tests/python/python_test.go.

usage: interop.py create PATH N P LAYOUT SCHEME VERSION SEED PRIME
       interop.py test PATH KEY...      print 1 or 0 per key, on one line
       interop.py add PATH KEY...       add the keys, print 1 or 0 (present before) per key
       interop.py writer PATH ID COUNT  add keys "w{ID}-{s}", print {"Counted": adds the header counts}
       interop.py hold PATH             open rw, print "ready", wait for stdin to close
       interop.py exclusive PATH OTHER  try clear and union while Go holds PATH
       interop.py union PATH OTHER      OR OTHER into PATH
       interop.py set-create DIR N P WINDOW_S KEEP NOW_NS   a set (WINDOW_S 0: scalable) at clock NOW_NS
       interop.py set-add DIR NOW_NS KEYFILE   print "opened", read a line, add the keys of KEYFILE (one a line) in batches of 64
       interop.py set-test DIR NOW_NS KEYFILE  print one 0/1 per key of KEYFILE, on one line
       interop.py set-layers DIR NOW_NS        print the MANIFEST's layers as JSON
"""

import json
import sys

import mmapbloom


def create(path, n, p, layout, scheme, version, seed, prime):
    mmapbloom.create(path, int(n), float(p), layout=layout or None, scheme=scheme or None,
                     version=int(version), seed=int(seed), prime_m=prime == "true").close()


def test(path, *keys):
    with mmapbloom.open(path) as f:
        print(" ".join("1" if k in f else "0" for k in keys))


def add(path, *keys):
    with mmapbloom.open(path, "rw") as f:
        print(" ".join("1" if f.add(k) else "0" for k in keys))


def writer(path, wid, count):
    """Even writers add one key per call, odd ones in batches of 64. The
    count counts the adds that set a new bit (v1.1: every add)."""
    new = 0
    keys = [f"w{wid}-{s}" for s in range(int(count))]
    with mmapbloom.open(path, "rw") as f:
        if int(wid) % 2 == 0:
            for k in keys:
                if not f.add(k):
                    new += 1
        else:
            for i in range(0, len(keys), 64):
                new += f.add_batch(keys[i:i + 64]).count(False)
        counted = len(keys) if f.header.version == 1 else new
    print(json.dumps({"Counted": counted}))


def hold(path):
    with mmapbloom.open(path, "rw"):
        print("ready", flush=True)
        sys.stdin.read()


def union(path, other):
    with mmapbloom.open(path, "rw") as f, mmapbloom.open(other) as g:
        f.union(g)


def exclusive(path, other):
    with mmapbloom.open(path, "rw") as f, mmapbloom.open(other) as g:
        for name, op in (("clear", f.clear), ("union", lambda: f.union(g))):
            try:
                op()
                print(name, "ok")
            except mmapbloom.InUse:
                print(name, "InUse")


def _keys(path):
    with open(path) as f:
        return f.read().split()


def _set(path, now_ns):
    return mmapbloom.open(path, "rw", now=lambda: int(now_ns))


def set_create(path, n, p, window_s, keep, now_ns):
    w = float(window_s) or None
    mmapbloom.create(path, int(n), float(p), window=w, keep=int(keep) if w else None,
                     now=lambda: int(now_ns)).close()


def set_add(path, now_ns, keyfile):
    keys = _keys(keyfile)
    with _set(path, now_ns) as s:
        print("opened", flush=True)
        sys.stdin.readline()  # Go writes a line when its writer is about to start
        for i in range(0, len(keys), 64):
            s.add_batch(keys[i:i + 64])


def set_test(path, now_ns, keyfile):
    with _set(path, now_ns) as s:
        print("".join("1" if x else "0" for x in s.test_batch(_keys(keyfile))))


def set_layers(path, now_ns):
    with _set(path, now_ns) as s:
        print(json.dumps([{"File": l["file"], "N": l["n"], "P": l["p"], "Window": l["window"]} for l in s.layers]))


if __name__ == "__main__":
    {"create": create, "test": test, "add": add, "writer": writer, "hold": hold, "exclusive": exclusive, "union": union,
     "set-create": set_create, "set-add": set_add, "set-test": set_test,
     "set-layers": set_layers}[sys.argv[1]](*sys.argv[2:])
