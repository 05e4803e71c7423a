// This file imports unsafe only for Sizeof: the layer kernels' assembly
// reads Layer records of 96 bytes.

package kernel

import "unsafe"

// ChunkKeys is the number of keys (cache lines, for the blocked layout)
// the batch pipelines of package mmapbloom hash and prefetch together:
// enough misses in flight to cover memory latency, few enough that the
// CPU keeps every prefetch (one that finds its miss buffers full may drop
// it). Measured at 10M keys on the development machine (AMD EPYC,
// AVX-512): 12 lines gave 21 ns/key for TestBatch and about 30 for AddBatch,
// 32 lines 31 and 55-70. A classic key needs k lines, so a classic chunk
// holds ChunkKeys/k keys, at least one. The layer kernels walk their
// rows of first bits ChunkKeys words at a time.
const ChunkKeys = 12

// Layer is what the multi-layer kernels (TestLayers, LocateLayers) read
// of one layer of a set (96 bytes, the assembly's layout).
type Layer struct {
	Words   uint64 // address of the layer's first word, in its mapping
	Lanes   uint32 // lane mask of its probes: the low k bits (k <= MaxLaneK)
	_       uint32
	NBlocks uint64 // blocks of 512 bits: m / 512
	_       uint64
	Wanted  [MaxLaneK]uint32 // lanes as 32-bit lane masks: all ones in lane j < k (AVX2)
}

// MaxLaneK is the most probes the multi-layer kernel tests at once.
const MaxLaneK = 16

// The layer kernels' assembly reads Layer records of 96 bytes: a compile
// error here means it needs the new size.
var _ [0]struct{} = [unsafe.Sizeof(Layer{}) - 96]struct{}{}
