//go:build amd64 && gc && !purego

package kernel

import "github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"

// TestLayers is the multi-layer test of the fused set pipeline (see
// mmapbloom/set_fused.go): it sets out[i] to whether any layer holds key i, whose
// in-block hash is gs[i] and whose block in layer l starts at bit
// first[l][i], asking the newest layer (the last) first and stopping at a
// hit. It returns false having done nothing where no kernel of its own
// exists (the generic kernel, or no layer): the caller then tests layer
// by layer with TestBlocks, which gives the same answers
// (TestFusedMatchesLayers). Every layer has k <= MaxLaneK.
func (k Kernel) TestLayers(layers []Layer, first [][ChunkKeys]uint64, gs []uint32, out []bool) bool {
	if k == Generic || len(layers) == 0 || len(gs) == 0 {
		return false
	}
	_, _ = first[len(layers)-1], out[len(gs)-1]
	if k == AVX512 {
		testLayersAVX512Asm(&layers[0], len(layers), &first[0][0], &gs[0], &out[0], len(gs), &hashing.PhiPow[0])
	} else {
		testLayersAVX2Asm(&layers[0], len(layers), &first[0][0], &gs[0], &out[0], len(gs), &hashing.PhiPow[0])
	}
	return true
}

// testLayersAVX2Asm is testLayersAVX512Asm with AVX2: the 16 probe lanes
// in two groups of 8, the second tested only when the first holds, each
// layer's line in two registers, the lane masks of its k probes read
// from its Layer.
//
//go:noescape
func testLayersAVX2Asm(layers *Layer, nl int, first *uint64, gs *uint32, out *bool, n int, mults *uint32)

// LocateLayers is the block computation of the fused set pipeline: for
// each layer l and key i, first[l][i] = the first bit of the block of
// hash hs[i] (hashing.Locator.BlockOf) in layer l, and the block's line is prefetched. It
// returns false having done nothing for the generic kernel or no keys:
// the caller then computes them in Go (TestFusedMatchesLayers checks the
// two agree under every kernel).
func (k Kernel) LocateLayers(layers []Layer, first [][ChunkKeys]uint64, hs []uint64) bool {
	if k == Generic || len(layers) == 0 || len(hs) == 0 {
		return false
	}
	_ = first[len(layers)-1]
	locateLayersAsm(&layers[0], len(layers), &first[0][0], &hs[0], len(hs))
	return true
}

// The assembly walks first in rows of 12 words (96 bytes): a compile
// error here means it needs the new row size (layer.go checks the
// 96-byte Layer).
var _ [0]struct{} = [ChunkKeys - 12]struct{}{}

// locateLayersAsm is LocateLayers for n <= ChunkKeys keys over nl
// layers, scalar: a 64x64 multiply, a store and a PREFETCHT0 per key and
// layer.
//
//go:noescape
func locateLayersAsm(layers *Layer, nl int, first *uint64, hs *uint64, n int)

// testLayersAVX512Asm is TestLayers for n <= ChunkKeys keys over nl
// layers with AVX-512F: each key's 16 probe lanes are computed once and
// tested against each layer's line in one register, under the layer's
// lane mask of k probes (k <= 16).
//
//go:noescape
func testLayersAVX512Asm(layers *Layer, nl int, first *uint64, gs *uint32, out *bool, n int, mults *uint32)
