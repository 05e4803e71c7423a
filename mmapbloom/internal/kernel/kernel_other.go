//go:build !amd64 || !gc || purego

package kernel

import (
	"runtime"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

func availableKernels() []Kernel { return []Kernel{Generic} }

// WhyNot returns why this build cannot run kernel k, or "" when it can:
// only amd64 gc builds without the purego tag have the SIMD kernels.
func WhyNot(k Kernel) string {
	if k == Generic {
		return ""
	}
	return "not built: the SIMD kernels need amd64 and gc without the purego tag (this is " + runtime.GOARCH + "/" + runtime.Compiler + ")"
}

// Prefetch is prefetchGeneric (see the package doc).
func (Kernel) Prefetch(words []uint64, bits []uint64) { prefetchGeneric(words, bits) }

// TestBlocks is testBlocksGeneric (see the package doc).
func (Kernel) TestBlocks(words []uint64, blocks []uint64, gs []uint32, k uint32, out []bool) {
	testBlocksGeneric(words, blocks, gs, k, out)
}

// TestBlock is TestLine on the block at bit first (see the package doc).
func (Kernel) TestBlock(words []uint64, first uint64, g uint32, k uint32) bool {
	return TestLine(words[first>>6:first>>6+hashing.BlockWords:first>>6+hashing.BlockWords], g, k)
}

// BlockMasks is blockMasksGeneric (see the package doc).
func (Kernel) BlockMasks(gs []uint32, k uint32, masks [][hashing.BlockWords]uint64) {
	blockMasksGeneric(gs, k, masks)
}

// AddBlocks does nothing: no kernel of its own (see the package doc).
func (Kernel) AddBlocks([]uint64, []uint64, []uint32, uint32) (int, bool) { return 0, false }

// OrBlocks is orBlocksMasked with the generic masks (see the package doc).
func (Kernel) OrBlocks(words []uint64, blocks []uint64, gs []uint32, k uint32) int {
	return orBlocksMasked(Generic, words, blocks, gs, k)
}

// AddBlock does nothing: no kernel of its own (see the package doc).
func (Kernel) AddBlock([]uint64, uint64, uint32, uint32) (added, ok bool) { return false, false }

// PrefetchBit does nothing: without a prefetch instruction, touching the
// line early could fault outside the fault guard.
func PrefetchBit([]uint64, uint64) {}

// TestLayers does nothing: no kernel of its own.
func (Kernel) TestLayers([]Layer, [][ChunkKeys]uint64, []uint32, []bool) bool { return false }

// LocateLayers does nothing: no kernel of its own.
func (Kernel) LocateLayers([]Layer, [][ChunkKeys]uint64, []uint64) bool { return false }
