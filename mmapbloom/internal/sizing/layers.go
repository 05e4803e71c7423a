package sizing

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
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
// below p by the same union bound. A windowed set with an expansion grows
// each window as a scalable set of n keys at p / W: the window's layer j
// holds n s^j keys at (p/W) (1-r) r^j, below p / W in all, so the bound
// holds however many keys a window receives.

// MinLayerP is the floor of a later layer's false-positive probability.
// p (1-r) r^i falls below it after some 60 layers at r = 0.5 (a set of
// expansion 1 reaches them at 60 n keys), where a layer would need more
// than format.MaxK hash functions: it could not be made and the set
// stopped taking keys. Layers past the floor are sized at it (or at the
// first layer's rate, when that is lower), so the union bound becomes p
// plus at most 1e-19 per layer past the floor (1e-16 after a thousand of
// them).
const MinLayerP = 1e-19

// ScalableLayer returns the capacity and false-positive probability of
// layer i of a scalable set, or errs.ErrTooLarge when n * s^i overflows. The
// probability never goes below min(MinLayerP, the first layer's).
func ScalableLayer(n uint64, p float64, s uint32, r float64, i int) (uint64, float64, error) {
	ni := n
	for range i {
		hi, lo := bits.Mul64(ni, uint64(s))
		if hi != 0 {
			return 0, 0, fmt.Errorf("mmapbloom: set layer %d: capacity %d * %d^%d: %w", i, n, s, i, errs.ErrTooLarge)
		}
		ni = lo
	}
	first := p * (1 - r)
	return ni, max(first*math.Pow(r, float64(i)), min(first, MinLayerP)), nil
}

// WindowLayer returns the capacity and false-positive probability of
// each layer of a windowed set keeping keep windows of n keys.
func WindowLayer(n uint64, p float64, keep int) (uint64, float64) {
	return n, p / float64(keep)
}
