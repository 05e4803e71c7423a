#!/usr/bin/python3
"""Writes the blocked512 golden vectors of this directory.

An independent transcription of the blocked512 / xxh3-blocked position
spec of format/FORMAT.md, in Python with the xxhash package (Debian
python3-xxhash), sharing no code with the Go library. Run from this
directory:

    /usr/bin/python3 gen.py

Each NAME.txt.gz holds a filter's m, k and seed, then one line per key in
order: the keys added (with TestAndAdd's answer when they are added in
file order), then the keys queried after every add (with Test's answer,
false positives included), each with its xxh3-64 and its k positions.
See README.md for the line format.
"""

import gzip
import hashlib
import xxhash

PHI = 0x9E3779B9
MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1


def positions(key, m, k, seed):
    """Returns (h, [k bit positions]) of key in a blocked512 filter."""
    h = xxhash.xxh3_64_intdigest(key, seed)
    blocks = m // 512
    block = (h * blocks) >> 64  # high 64 bits of the 128-bit product
    g = h & MASK32
    pos = []
    for j in range(k):
        mult = pow(PHI, j + 1, 1 << 32)
        pos.append(block * 512 + (((g * mult) & MASK32) >> 23))
    return h, pos


def key_field(key):
    return key.hex() if key else "-"


def vector(name, m, k, seed, added, queried, note):
    assert m % 512 == 0 and 1 <= k <= 64 and 0 <= seed <= MASK64
    bits = bytearray(m // 8)

    def is_set(p):
        return bits[p // 8] >> (p % 8) & 1 == 1

    lines = []
    for key in added:
        h, pos = positions(key, m, k, seed)
        present = all(is_set(p) for p in pos)  # before this add
        for p in pos:
            bits[p // 8] |= 1 << (p % 8)
        lines.append(f"add {key_field(key)} {h:016x} {int(present)} {' '.join(map(str, pos))}")
    for key in queried:
        h, pos = positions(key, m, k, seed)
        present = all(is_set(p) for p in pos)
        lines.append(f"query {key_field(key)} {h:016x} {int(present)} {' '.join(map(str, pos))}")
    popcount = sum(bin(b).count("1") for b in bits)
    text = (f"# {note}\n"
            "# written by gen.py from format/FORMAT.md's blocked512 spec\n"
            f"m {m}\nk {k}\nseed {seed}\n"
            f"bits {popcount} {hashlib.sha256(bits).hexdigest()}\n"
            + "\n".join(lines) + "\n")
    with open(name + ".txt.gz", "wb") as out:  # no name, time stamp 0: reproducible bytes
        out.write(gzip.compress(text.encode(), compresslevel=9, mtime=0))


def keys(fmt, n):
    return [fmt.format(i).encode() for i in range(n)]


def odd_keys():
    """Keys of every length xxh3 treats apart (0, 1-3, 4-8, 9-16, 17-128,
    129-240, above 240), binary bytes and UTF-8."""
    out = [b""]
    for n in list(range(1, 260)) + [511, 1000, 4097]:
        out.append(bytes((i * 131 + n) & 0xFF for i in range(n)))
    out += ["héllo wörld".encode(), "ключ".encode(), b"tab\there", b"\x00", b"\xff" * 8]
    return out


def main():
    urls = keys("https://example.com/{}/index.html", 4000)
    vector("m1024-k4-seed1", 1024, 4, 1, keys("key-{}", 64),
           [b"a"] + keys("key-{}", 64) + keys("absent-{}", 400),
           "the example of issue 14: CreateWithMK(path, 1024, 4), seed 1")
    vector("m512-k7-seed0", 512, 7, 0, keys("one-block-{}", 80),
           keys("one-block-{}", 80) + keys("absent-{}", 400) + [b""],
           "m of one block")
    vector("m1536-k16-seed16045690984503098046", 1536, 16, 0xDEADBEEFCAFEBABE, odd_keys()[:120],
           odd_keys() + keys("absent-{}", 500),
           "three blocks (an odd number), k = 16, a seed above 2^32, keys of every length")
    vector("m51712-k11-seedmax", 101 * 512, 11, MASK64, urls,
           urls[::20] + keys("https://absent.example/{}", 2000),
           "101 blocks, k = 11, seed 2^64-1, about 40 keys a block")
    vector("m3584-k64-seed42", 7 * 512, 64, 42, keys("k64-{}", 30),
           keys("k64-{}", 30) + keys("absent-{}", 300),
           "seven blocks, k = 64 (the most)")
    vector("m2560-k1-seed7", 5 * 512, 1, 7, keys("k1-{}", 300),
           keys("k1-{}", 300) + keys("absent-{}", 300),
           "five blocks, k = 1")


if __name__ == "__main__":
    main()
