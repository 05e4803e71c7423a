package hashing

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
// bit positions"); the golden vectors of mmapbloom/testdata/blocked512 freeze it.
const (
	// BlockBits is the size of a block in bits: one 64-byte cache line.
	BlockBits = 512
	// BlockWords is the size of a block in 64-bit words.
	BlockWords = BlockBits / 64
	phi32      = 0x9e3779b9
)

// PhiPow[j] is phi^(j+1) mod 2^32, the multiplier of probe j (read by
// the SIMD kernels as well; never written after start-up).
var PhiPow = func() (p [format.MaxK]uint32) {
	x := uint32(1)
	for j := range p {
		x *= phi32
		p[j] = x
	}
	return p
}()

// BlockHash returns the block and the in-block hash g of key.
func (l *Locator) BlockHash(key []byte) (block uint64, g uint32) {
	return l.BlockOf(xxh3.HashSeed(key, l.seed))
}

// BlockOf returns the block and the in-block hash g of a key whose xxh3
// hash under the filter's seed is h.
func (l *Locator) BlockOf(h uint64) (block uint64, g uint32) {
	return Reduce(h, l.m/BlockBits), uint32(h)
}

// locateBlocked writes the k absolute bit positions of key into dst.
func (l *Locator) locateBlocked(key []byte, dst []uint64) {
	block, g := l.BlockHash(key)
	for j := range dst {
		dst[j] = block*BlockBits + uint64((g*PhiPow[j])>>23)
	}
}

// BlockMask returns the 512-bit mask (8 words) of the k probes of g.
func BlockMask(g uint32, k uint32) (mask [BlockWords]uint64) {
	for _, mul := range PhiPow[:k] {
		h := g * mul
		mask[h>>29] |= 1 << ((h >> 23) & 63)
	}
	return mask
}
