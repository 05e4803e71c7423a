//go:build !amd64 || !gc || purego

package mmapbloom

import "github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"

func availableKernels() []kernel { return []kernel{kernelGeneric} }

func (kernel) prefetch(words []uint64, bits []uint64) { prefetchGeneric(words, bits) }

func (kernel) testBlocks(words []uint64, blocks []uint64, gs []uint32, k uint32, out []bool) {
	testBlocksGeneric(words, blocks, gs, k, out)
}

func (kernel) blockMasks(gs []uint32, k uint32, masks [][hashing.BlockWords]uint64) {
	blockMasksGeneric(gs, k, masks)
}

func (kernel) addBlocks(*Filter, []uint64, []uint32) (int, bool) { return 0, false }

// prefetchBit does nothing: without a prefetch instruction, touching the
// line early could fault outside the fault guard.
func prefetchBit([]uint64, uint64) {}

func (kernel) testLayers([]fusedLayer, [][chunkKeys]uint64, []uint32, []bool) bool { return false }

func (kernel) locateLayers([]fusedLayer, [][chunkKeys]uint64, []uint64) bool { return false }
