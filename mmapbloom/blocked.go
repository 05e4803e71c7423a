package mmapbloom

import (
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
)

// The blocked-512 layout's probes on a filter's words: the bit positions
// are hashing's (internal/hashing/blocked.go).

// line returns the 8 words of a block.
func (f *Filter) line(block uint64) []uint64 {
	return f.words[block*hashing.BlockWords : block*hashing.BlockWords+hashing.BlockWords : block*hashing.BlockWords+hashing.BlockWords]
}

// setBlock ORs the probes of g into block; with report it says whether
// this call claims the key (claimLine); without, whether any bit was
// clear before this call set it (orWord), answered by the kernel's
// AddBlock where it has one (AVX-512: the mask in a register).
func (f *Filter) setBlock(block uint64, g uint32, report bool) bool {
	if !report {
		if added, ok := kernel.Active.AddBlock(f.words, block*hashing.BlockBits, g, f.hdr.K); ok {
			return added
		}
	}
	mask := hashing.BlockMask(g, f.hdr.K)
	return f.orLine(block, &mask, report)
}

// orLine ORs an 8-word mask into block, and reports whether a bit was
// clear before; a block that holds every bit of the mask is not written
// (no locked instruction, no dirtied page), and one that lacks some gets
// an atomic OR in each of its words: eight ORs in a row cost less than
// a branch per word on whether it lacks bits, which the branch
// predictor misses (BENCHMARKS.md, "Batch Add against its floor"). With
// report it says whether this call claims the key (see claimLine)
// instead.
func (f *Filter) orLine(block uint64, mask *[hashing.BlockWords]uint64, report bool) bool {
	line := f.line(block)
	if report {
		return claimLine(line, mask)
	}
	var lacks uint64
	for w, m := range mask {
		lacks |= m &^ atomic.LoadUint64(&line[w])
	}
	if lacks == 0 {
		return false
	}
	for w, m := range mask {
		atomic.OrUint64(&line[w], m)
	}
	return true
}
