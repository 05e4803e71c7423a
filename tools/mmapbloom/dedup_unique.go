package main

import (
	"bytes"
	"hash/maphash"
)

// batchUnique finds the keys of a batch not seen before, each once: a key
// repeated within the batch is new only at its first occurrence (the
// filter does not hold it yet when the batch is tested).
type batchUnique struct {
	seed  maphash.Seed
	first map[uint64]int // hash of a new key -> its first index
}

// fresh appends to dst the indices i with !seen[i], leaving out a key
// equal to an earlier one so chosen, and returns dst.
func (u *batchUnique) fresh(keys [][]byte, seen []bool, dst []int) []int {
	if u.first == nil {
		u.seed, u.first = maphash.MakeSeed(), make(map[uint64]int, batchSize)
	}
	clear(u.first)
	for i, key := range keys {
		if seen[i] {
			continue
		}
		h := maphash.Bytes(u.seed, key)
		j, ok := u.first[h]
		if ok && (bytes.Equal(keys[j], key) || repeated(keys, dst, key)) {
			continue
		}
		if !ok {
			u.first[h] = i
		}
		dst = append(dst, i)
	}
	return dst
}

// repeated reports whether key equals a key of keys at one of the indices
// chosen: the exact check behind a 64-bit hash collision.
func repeated(keys [][]byte, chosen []int, key []byte) bool {
	for _, j := range chosen {
		if bytes.Equal(keys[j], key) {
			return true
		}
	}
	return false
}
