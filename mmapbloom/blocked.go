package mmapbloom

import (
	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
)

// The blocked-512 layout (format.LayoutBlocked512) keeps all k bits of a
// key inside one 512-bit block, one 64-byte cache line, so a probe costs one
// cache miss (Putze, Sanders and Singler 2007, "Cache-, Hash- and
// Space-Efficient Bloom Filters"; RocksDB's FastLocalBloom).
//
// Scheme format.SchemeXXH3Blocked: h = xxh3-64(key, seed); the block is h
// reduced onto [0, m/512) over its full 64-bit range (the high word of
// h * blocks); g = the low 32 bits of h; probe j (0 <= j < k) is bit
// (g * phi^(j+1) mod 2^32) >> 23 of the block, phi = 0x9e3779b9, so the
// top 3 bits of the product pick the 64-bit word and the next 6 the bit.
// This is part of the file format (format/FORMAT.md, "Blocked512 layout:
// bit positions"); the golden vectors of testdata/blocked512 freeze it.
const (
	blockBits  = 512
	blockWords = blockBits / 64
	phi32      = 0x9e3779b9
)

// phiPow[j] is phi^(j+1) mod 2^32, the multiplier of probe j.
var phiPow = func() (p [format.MaxK]uint32) {
	x := uint32(1)
	for j := range p {
		x *= phi32
		p[j] = x
	}
	return p
}()

// blockHash returns the block and the in-block hash g of key.
func (l *locator) blockHash(key []byte) (block uint64, g uint32) {
	return l.blockOf(xxh3.HashSeed(key, l.seed))
}

// blockOf returns the block and the in-block hash g of a key whose xxh3
// hash under the filter's seed is h.
func (l *locator) blockOf(h uint64) (block uint64, g uint32) {
	return reduce(h, l.m/blockBits), uint32(h)
}

// locateBlocked writes the k absolute bit positions of key into dst.
func (l *locator) locateBlocked(key []byte, dst []uint64) {
	block, g := l.blockHash(key)
	for j := range dst {
		dst[j] = block*blockBits + uint64((g*phiPow[j])>>23)
	}
}

// blockMask returns the 512-bit mask (8 words) of the k probes of g.
func blockMask(g uint32, k uint32) (mask [blockWords]uint64) {
	for _, mul := range phiPow[:k] {
		h := g * mul
		mask[h>>29] |= 1 << ((h >> 23) & 63)
	}
	return mask
}

// line returns the 8 words of a block.
func (f *Filter) line(block uint64) []uint64 {
	return f.words[block*blockWords : block*blockWords+blockWords : block*blockWords+blockWords]
}

// setBlock ORs the probes of g into block; with report it says whether
// any bit was clear before this call set it (see orWord).
func (f *Filter) setBlock(block uint64, g uint32, report bool) bool {
	mask := blockMask(g, f.hdr.K)
	return f.orLine(block, &mask, report)
}

// orLine ORs an 8-word mask into block, skipping the words that already
// hold their part (a zero part included: no branch on it, which would be
// mispredicted); with report it says whether any bit was clear before.
func (f *Filter) orLine(block uint64, mask *[blockWords]uint64, report bool) (set bool) {
	line := f.line(block)
	for w, m := range mask {
		set = orWord(&line[w], m, report) || set
	}
	return set
}
