// Package hashing turns a key into the bit positions of a filter, for
// every hash scheme of format/FORMAT.md: MurmurHash64A (v1.1's double
// hashing, the safe double hashing, the LCG-seeded scheme), xxh3-128 with
// remixed positions (classic v2) and xxh3-64 blocked to one 512-bit line
// (blocked512). It is the Go twin of python/src/mmapbloom/hashing.py; both are
// checked against the golden positions of testdata/py and the vectors of
// testdata/vectors. It reads no file and holds no state beyond a
// Locator's parameters.
package hashing
