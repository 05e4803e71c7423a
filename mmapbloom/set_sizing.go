package mmapbloom

import (
	"fmt"
	"math"
	"math/bits"
)

// Layer sizing of filter sets.
//
// Scalable sets (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom
// Filters", IPL 101(6), 2007, section 4): layer i (from 0) holds
//
//	n_i = n * s^i           keys, s = Expansion
//	p_i = p * (1-r) * r^i   false-positive probability, r = Tightening
//
// A key never added tests present in the set when it tests present in
// any layer, so the compound rate is 1 - prod(1 - p_i) <= sum p_i =
// p (1-r) (1 + r + r^2 + ...) < p for every r in (0, 1). With RedisBloom's
// defaults (r = 0.5, s = 2; RedisBloom src/sb.c ERROR_TIGHTENING_RATIO and
// SBChain_AddLink) this is RedisBloom's chain exactly: p/2, p/4, p/8, ...;
// bloomd (src/libbloom/sbf.c) uses the same formula with s = 4, r = 0.9.
// RedisBloom's own form, p * r^(i+1), is the same for r = 0.5 but sums to
// p r / (1-r), above p for r > 0.5, which is why the (1-r) form is used.
//
// Windowed sets: each window's layer holds n keys (the keys expected in
// one window) at p / W, W = Keep, so that the W live layers together stay
// below p by the same union bound.

// scalableLayer returns the capacity and false-positive probability of
// layer i of a scalable set, or ErrTooLarge when n * s^i overflows.
func scalableLayer(n uint64, p float64, s uint32, r float64, i int) (uint64, float64, error) {
	ni := n
	for range i {
		hi, lo := bits.Mul64(ni, uint64(s))
		if hi != 0 {
			return 0, 0, fmt.Errorf("mmapbloom: set layer %d: capacity %d * %d^%d: %w", i, n, s, i, ErrTooLarge)
		}
		ni = lo
	}
	return ni, p * (1 - r) * math.Pow(r, float64(i)), nil
}

// windowLayer returns the capacity and false-positive probability of
// each layer of a windowed set keeping keep windows of n keys.
func windowLayer(n uint64, p float64, keep int) (uint64, float64) {
	return n, p / float64(keep)
}
