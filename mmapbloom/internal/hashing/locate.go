package hashing

import (
	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
)

// The linear congruential generator of the murmur2-seeds scheme
// (format/FORMAT.md) for the k hash seeds: x(0) = 314159265 (the seeded C
// reference filter's value, or the filter's seed), x(i+1) =
// 1664525 x(i) + 1013904223 in uint32 arithmetic.
const (
	// LCGSeed is the first LCG seed of the murmur2-seeds scheme's C
	// reference filter (mmapbloom.DocumentSeed).
	LCGSeed = 314159265
	lcgA    = 1664525
	lcgC    = 1013904223
)

// Locator derives a key's k bit positions in [0, m) by one of the hash
// schemes of format.Scheme. Every implementation of a probe (single key,
// batch, SIMD) must give exactly the positions of Locate.
type Locator struct {
	scheme format.Scheme
	m      uint64
	k      uint32
	seed   uint64
	seeds  []uint64 // SchemeMurmurSeeds: the k LCG seeds
}

// NewLocator returns the Locator of a filter with header h (its scheme,
// m, k and seed).
func NewLocator(h format.Header) Locator {
	l := Locator{scheme: h.Scheme, m: h.M, k: h.K, seed: h.Seed}
	if h.Scheme == format.SchemeMurmurSeeds {
		l.seeds = make([]uint64, h.K)
		x := uint32(h.Seed)
		for i := range l.seeds {
			l.seeds[i] = uint64(x)
			x = lcgA*x + lcgC
		}
	}
	return l
}

// Locate writes the k positions of key into dst[:k] and returns dst[:k].
func (l *Locator) Locate(key []byte, dst []uint64) []uint64 {
	dst = dst[:l.k]
	switch l.scheme {
	case format.SchemeMurmurDoubleV1:
		l.doubleV1(key, dst)
	case format.SchemeXXH3Blocked:
		l.locateBlocked(key, dst)
	case format.SchemeXXH3Remix:
		l.remix(key, dst)
	case format.SchemeMurmurSeeds:
		for i, s := range l.seeds {
			dst[i] = MurmurHash64A(key, s) % l.m
		}
	default:
		l.double(key, dst)
	}
	return dst
}

// doubleV1 is the v1.1 reference code's bloom_hash exactly: h1 = MurmurHash64A(key,
// seed), h2 = MurmurHash64A(key, MIX_UINT64(h1)), position i = (h1 + i*h2)
// mod m in wrapping uint64 arithmetic. It can repeat one position k times
// (h2 = 0 mod m); format v1.1 files keep it for interoperability.
func (l *Locator) doubleV1(key []byte, dst []uint64) {
	h1 := MurmurHash64A(key, l.seed)
	h2 := MurmurHash64A(key, MixSeed(h1))
	for i := range dst {
		dst[i] = (h1 + uint64(i)*h2) % l.m
	}
}

// double is SchemeMurmurDouble: the same two hashes as doubleV1, mapped
// onto the full range of m before stepping (a = h1 reduced to [0, m),
// step b = 1 + h2 reduced to [0, m-1)), so the step is never 0 mod m and
// every key sets min(k, 2) or more distinct bits when m > 1. Position
// i = (a + i*b) mod m, computed without overflow (Kirsch and Mitzenmacher
// 2006, "Less Hashing, Same Performance").
func (l *Locator) double(key []byte, dst []uint64) {
	h1 := MurmurHash64A(key, l.seed)
	h2 := MurmurHash64A(key, MixSeed(h1))
	a := Reduce(h1, l.m)
	var b uint64
	if l.m > 1 {
		b = 1 + Reduce(h2, l.m-1)
	}
	for i := range dst {
		dst[i] = a
		a += b
		if a >= l.m {
			a -= l.m
		}
	}
}

// remix is SchemeXXH3Remix: (lo, hi) = xxh3-128(key, seed), step = hi|1;
// position i = the high word of fmix64(lo + i*step) * m. The k values
// lo + i*step are distinct (an odd step is invertible mod 2^64, i < 64),
// fmix64 (MurmurHash3's finaliser) is a bijection that spreads them, and
// the multiply-shift reduction (Lemire 2016) works for any m, so the
// positions behave like k independent hashes: a key sets fewer than k
// distinct bits only by the birthday chance, about k^2/(2m), whatever the
// factors of m. The double hashing of SchemeMurmurDouble, (a + i*b) mod m,
// repeats positions whenever b shares a factor with m (b = m/2, m/3, ...),
// which puts a floor near 0.25/m under its false-positive rate.
func (l *Locator) remix(key []byte, dst []uint64) {
	h := xxh3.Hash128Seed(key, l.seed)
	step := h.Hi | 1
	x := h.Lo
	for i := range dst {
		dst[i] = Reduce(fmix64(x), l.m)
		x += step
	}
}

// fmix64 is MurmurHash3's 64-bit finaliser (Appleby), a bijection whose
// every output bit depends on every input bit.
func fmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
