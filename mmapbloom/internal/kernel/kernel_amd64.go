//go:build amd64 && gc && !purego

package kernel

import (
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// simdKernels lists the SIMD kernels, best first, with the CPU features
// each needs.
var simdKernels = []struct {
	kernel   Kernel
	features []cpuid.FeatureID
}{
	{AVX512, []cpuid.FeatureID{cpuid.AVX512F, cpuid.BMI2}},
	{AVX2, []cpuid.FeatureID{cpuid.AVX2}},
}

// availableKernels returns the SIMD kernels this CPU (and its OS, which
// must save the wide registers; cpuid checks both) can run, then the
// generic one.
func availableKernels() []Kernel {
	var ks []Kernel
	for _, s := range simdKernels {
		if cpuid.CPU.Supports(s.features...) {
			ks = append(ks, s.kernel)
		}
	}
	return append(ks, Generic)
}

// WhyNot returns why this CPU cannot run kernel k, naming the CPU
// features it lacks, or "" when it can.
func WhyNot(k Kernel) string {
	for _, s := range simdKernels {
		if s.kernel != k {
			continue
		}
		var lacks []string
		for _, f := range s.features {
			if !cpuid.CPU.Supports(f) {
				lacks = append(lacks, f.String())
			}
		}
		if len(lacks) > 0 {
			return "this CPU lacks " + strings.Join(lacks, " and ")
		}
	}
	return ""
}

// Prefetch asks for the lines of bits (see the package doc).
func (k Kernel) Prefetch(words []uint64, bits []uint64) {
	switch {
	case k == Generic:
		prefetchGeneric(words, bits)
	case len(bits) > 0:
		prefetchLines(&words[0], &bits[0], len(bits))
	}
}

// TestBlocks tests the probes of gs in blocks (see the package doc).
func (k Kernel) TestBlocks(words []uint64, blocks []uint64, gs []uint32, probes uint32, out []bool) {
	if k == Generic || len(blocks) == 0 {
		testBlocksGeneric(words, blocks, gs, probes, out)
		return
	}
	_, _ = gs[len(blocks)-1], out[len(blocks)-1]
	if k == AVX512 {
		testBlocksAVX512Asm(&words[0], &blocks[0], &gs[0], &out[0], len(blocks), int(probes), &hashing.PhiPow[0])
		return
	}
	testBlocksAVX2Asm(&words[0], &blocks[0], &gs[0], &out[0], len(blocks), int(probes), &hashing.PhiPow[0], &laneMasks[0][0])
}

// TestBlock is TestBlocks for one block, at bit first: a single key's
// test without the batch's slices (see the package doc).
func (k Kernel) TestBlock(words []uint64, first uint64, g uint32, probes uint32) bool {
	var out bool
	switch k {
	case AVX512:
		testBlocksAVX512Asm(&words[0], &first, &g, &out, 1, int(probes), &hashing.PhiPow[0])
	case AVX2:
		testBlocksAVX2Asm(&words[0], &first, &g, &out, 1, int(probes), &hashing.PhiPow[0], &laneMasks[0][0])
	default:
		out = TestLine(words[first>>6:first>>6+hashing.BlockWords:first>>6+hashing.BlockWords], g, probes)
	}
	return out
}

// PrefetchBit asks for the cache line of bit of words (PREFETCHT0, which
// never faults); nothing when words is empty (a closed Filter's).
func PrefetchBit(words []uint64, bit uint64) {
	if len(words) > 0 {
		prefetchLines(&words[0], &bit, 1)
	}
}

// laneMasks[j] has its first j 32-bit lanes all ones: the lanes of the last
// group of 8 probes that exist when k is not a multiple of 8.
var laneMasks = func() (m [9][8]uint32) {
	for j := range m {
		for l := range j {
			m[j][l] = ^uint32(0)
		}
	}
	return m
}()

// BlockMasks computes the probe masks of gs (see the package doc).
func (k Kernel) BlockMasks(gs []uint32, probes uint32, masks [][hashing.BlockWords]uint64) {
	if k == Generic || len(gs) == 0 {
		blockMasksGeneric(gs, probes, masks)
		return
	}
	_ = masks[len(gs)-1]
	if k == AVX512 {
		blockMasksAVX512(&gs[0], &masks[0][0], len(gs), int(probes), &hashing.PhiPow[0])
		return
	}
	blockMasksAVX2(&gs[0], &masks[0][0], len(gs), int(probes), &hashing.PhiPow[0])
}

// AddBlocks sets the k probes of gs[i] in the block at bit blocks[i]
// (see the package doc); the AVX-512 and AVX2 kernels have their own.
func (k Kernel) AddBlocks(words []uint64, blocks []uint64, gs []uint32, probes uint32) (added int, ok bool) {
	if k == Generic || len(blocks) == 0 {
		return 0, false
	}
	_ = gs[len(blocks)-1]
	if k == AVX512 {
		return addBlocksAVX512(&words[0], &blocks[0], &gs[0], len(blocks), int(probes), &hashing.PhiPow[0]), true
	}
	return addBlocksAVX2(&words[0], &blocks[0], &gs[0], len(blocks), int(probes), &hashing.PhiPow[0]), true
}

// OrBlocks sets the k probes of gs[i] in the block at bit blocks[i]
// with plain ORs, for one writer alone (see the package doc); the
// AVX-512 kernel has its own, the others OR in Go the masks of their
// BlockMasks (orBlocksMasked).
func (k Kernel) OrBlocks(words []uint64, blocks []uint64, gs []uint32, probes uint32) int {
	if k != AVX512 || len(blocks) == 0 {
		return orBlocksMasked(k, words, blocks, gs, probes)
	}
	_ = gs[len(blocks)-1]
	return orBlocksAVX512(&words[0], &blocks[0], &gs[0], len(blocks), int(probes), &hashing.PhiPow[0])
}

// AddBlock is AddBlocks for the one block at bit first: it reports
// whether the key found a probe's bit clear, or ok false having done
// nothing (see the package doc); the AVX-512 and AVX2 kernels have their
// own. The check inlines into the caller: the generic kernel pays no call.
func (k Kernel) AddBlock(words []uint64, first uint64, g uint32, probes uint32) (added, ok bool) {
	if k == Generic {
		return false, false
	}
	return addBlockSIMD(k, words, first, g, probes), true
}

// addBlockSIMD is AddBlock of the AVX-512 and AVX2 kernels (kept out of
// line so that AddBlock inlines).
//
//go:noinline
func addBlockSIMD(k Kernel, words []uint64, first uint64, g uint32, probes uint32) bool {
	added, _ := k.AddBlocks(words, []uint64{first}, []uint32{g}, probes)
	return added > 0
}

// prefetchLines issues PREFETCHT0 for the line of bit bits[i] of words,
// i < n.
//
//go:noescape
func prefetchLines(words *uint64, bits *uint64, n int)

// testBlocksAVX2Asm is TestBlocks for n blocks with AVX2: 8 probes at a
// time, each gathering its 32-bit word of the line with VPERMD.
//
//go:noescape
func testBlocksAVX2Asm(words *uint64, blocks *uint64, gs *uint32, out *bool, n, k int, mults *uint32, lanes *uint32)

// testBlocksAVX512Asm is TestBlocks for n blocks with AVX-512F: the whole
// line in one register, 16 probes at a time.
//
//go:noescape
func testBlocksAVX512Asm(words *uint64, blocks *uint64, gs *uint32, out *bool, n, k int, mults *uint32)

// blockMasksAVX512 is BlockMasks for n keys with AVX-512F: each probe sets
// its bit in all 8 words of a register by a variable shift that is 0 in
// every word but its own.
//
//go:noescape
func blockMasksAVX512(gs *uint32, masks *uint64, n, k int, mults *uint32)

// blockMasksAVX2 is blockMasksAVX512 with the 8 words in two registers.
//
//go:noescape
func blockMasksAVX2(gs *uint32, masks *uint64, n, k int, mults *uint32)

// addBlocksAVX512 is AddBlocks for n keys with AVX-512F: the probe mask of
// each key is built and tested against its block in registers; a block
// that lacks bits gets one LOCK OR in each of its 8 words (of 0 in those
// that lack none), a block that lacks none no write. It returns how many
// keys lacked a bit.
//
//go:noescape
func addBlocksAVX512(words *uint64, blocks *uint64, gs *uint32, n, k int, mults *uint32) (added int)

// addBlocksAVX2 is addBlocksAVX512 with AVX2: the probe mask and the
// bits the block lacks in two registers each.
//
//go:noescape
func addBlocksAVX2(words *uint64, blocks *uint64, gs *uint32, n, k int, mults *uint32) (added int)

// orBlocksAVX512 is OrBlocks for n keys with AVX-512F: the probe mask of
// each key is built in a register, tested against its block and ORed in
// with one masked store of the words that lack bits. It returns how many
// keys lacked a bit.
//
//go:noescape
func orBlocksAVX512(words *uint64, blocks *uint64, gs *uint32, n, k int, mults *uint32) (added int)
