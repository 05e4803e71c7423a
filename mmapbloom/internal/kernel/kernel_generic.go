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

// orBlocksMasked is OrBlocks with the probe masks of kernel k's
// BlockMasks (the AVX2 and the pure-Go ones), ChunkKeys keys at a time,
// each ORed into its block by orLinePlain.
func orBlocksMasked(k Kernel, words []uint64, blocks []uint64, gs []uint32, probes uint32) (added int) {
	var masks [ChunkKeys][hashing.BlockWords]uint64
	for from := 0; from < len(blocks); from += ChunkKeys {
		to := min(from+ChunkKeys, len(blocks))
		k.BlockMasks(gs[from:to], probes, masks[:to-from])
		for i, b := range blocks[from:to] {
			first := b >> 6
			if orLinePlain(words[first:first+hashing.BlockWords:first+hashing.BlockWords], &masks[i]) {
				added++
			}
		}
	}
	return added
}

// orLinePlain ORs mask into the 8-word line with plain loads and stores
// and reports whether a word lacked a bit of it. A line that lacks none
// is not written; one that lacks some gets a store in each of its 8
// words, which costs less than a branch per word whose outcome the
// predictor misses (as in the AVX-512 add kernel).
func orLinePlain(line []uint64, mask *[hashing.BlockWords]uint64) bool {
	var lacks uint64
	for w, m := range mask {
		lacks |= m &^ line[w]
	}
	if lacks == 0 {
		return false
	}
	for w, m := range mask {
		line[w] |= m
	}
	return true
}
