package kernel

import (
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// prefetchGeneric loads one word of every line: independent loads in a
// tight loop keep many misses in flight on any CPU. The sum only keeps
// the loads from being removed.
func prefetchGeneric(words []uint64, bits []uint64) {
	var sum uint64
	for _, b := range bits {
		sum += atomic.LoadUint64(&words[b>>6])
	}
	_ = sum
}

// testBlocksGeneric is the pure-Go TestBlocks.
func testBlocksGeneric(words []uint64, blocks []uint64, gs []uint32, k uint32, out []bool) {
	for i, b := range blocks {
		first := b >> 6
		out[i] = TestLine(words[first:first+hashing.BlockWords:first+hashing.BlockWords], gs[i], k)
	}
}

// TestLine reports whether every one of the k probes of in-block hash g
// is set in the 8-word line, with atomic loads.
func TestLine(line []uint64, g uint32, k uint32) bool {
	for _, mul := range hashing.PhiPow[:k] {
		h := g * mul
		if atomic.LoadUint64(&line[h>>29])&(1<<((h>>23)&63)) == 0 {
			return false
		}
	}
	return true
}

// blockMasksGeneric is the pure-Go BlockMasks.
func blockMasksGeneric(gs []uint32, k uint32, masks [][hashing.BlockWords]uint64) {
	for i, g := range gs {
		masks[i] = hashing.BlockMask(g, k)
	}
}

// orBlocksGeneric is the pure-Go OrBlocks: each key's mask ORed into its
// block with plain loads and stores, a word stored only when it lacks a
// bit.
func orBlocksGeneric(words []uint64, blocks []uint64, gs []uint32, k uint32) (added int) {
	for i, b := range blocks {
		first := b >> 6
		line := words[first : first+hashing.BlockWords : first+hashing.BlockWords]
		lacked := false
		for w, m := range hashing.BlockMask(gs[i], k) {
			if line[w]&m != m {
				line[w] |= m
				lacked = true
			}
		}
		if lacked {
			added++
		}
	}
	return added
}
