package hashing

import (
	"encoding/binary"
	"math/bits"
)

// murmurM and murmurR are MurmurHash64A's multiplier and shift
// (Austin Appleby, MurmurHash2, 64-bit version for 64-bit platforms).
const (
	murmurM = 0xc6a4a7935bd1e995
	murmurR = 47
)

// MurmurHash64A returns Austin Appleby's 64-bit MurmurHash2 (MurmurHash64A)
// of key with the given seed, reading 8-byte blocks little-endian, as the
// v1.1 format and the murmur2-seeds scheme of format/FORMAT.md use it. The result is the same on every
// platform.
func MurmurHash64A(key []byte, seed uint64) uint64 {
	h := seed ^ (uint64(len(key)) * murmurM)
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= murmurM
		k ^= k >> murmurR
		k *= murmurM
		h ^= k
		h *= murmurM
		key = key[8:]
	}
	if len(key) > 0 {
		var tail uint64
		for i := len(key) - 1; i >= 0; i-- {
			tail = tail<<8 | uint64(key[i])
		}
		h ^= tail
		h *= murmurM
	}
	h ^= h >> murmurR
	h *= murmurM
	h ^= h >> murmurR
	return h
}

// MixSeed is MIX_UINT64 of the v1.1 reference code: the 32-bit fold of a
// 64-bit hash, the seed of the second hash of v1.1's double hashing.
func MixSeed(h uint64) uint64 {
	return uint64(uint32((h >> 32) ^ h))
}

// Reduce maps a 64-bit hash onto [0, m) without modulo bias worth noting
// and without a division: the high word of h*m (Lemire 2016, "Fast random
// integer generation in an interval").
func Reduce(h, m uint64) uint64 {
	hi, _ := bits.Mul64(h, m)
	return hi
}
