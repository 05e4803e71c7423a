package sizing

import (
	"fmt"
	"math"
	"sync"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// MinBlockedP is the smallest false-positive probability the blocked
// layout is built for. Below it a 512-bit block needs over 35% more bits
// than the classic layout (38.6 against 28.8 bits per key at 1e-6, 62.7
// against 38.3 at 1e-8) and the 32-bit in-block hash sets a floor near
// keys-per-block / 2^32, so mmapbloom.Create's default layout is classic there and
// an explicit blocked layout is refused with errs.ErrBadOptions.
const MinBlockedP = 1e-6

// Blocked returns the bits m (a multiple of 512) and probes k of a
// blocked-512 filter for n keys at false-positive probability p: the
// fewest blocks whose false-positive rate, at the best k, stays at most
// WithMargin(p) (0.92 p at small p) even three standard deviations above
// its mean. For a million keys it takes at most 1.37 times the bits of
// Classic for the same n and p (the most is at MinBlockedP; about
// 1.05 from p = 1e-2 to 0.5, 1.03 at 0.9), and at large p under one bit
// per key; small filters need a few percent more (see mmapbloom's blockedPays). The mean and the
// spread come from the Poisson model of keys per block (BlockedFPR); the
// spread, the luck of how n keys fall into B blocks, shrinks as 1/sqrt(B),
// so small filters get a few percent more bits and large ones none. Errors:
// errs.ErrInvalidN, errs.ErrInvalidP, errs.ErrBadOptions (p below MinBlockedP),
// errs.ErrTooLarge.
func Blocked(n uint64, p float64) (m uint64, k uint32, err error) {
	if err := CheckNP(n, p); err != nil {
		return 0, 0, err
	}
	if p < MinBlockedP {
		return 0, 0, fmt.Errorf("p = %v is below %v, the blocked layout's floor; use the classic layout: %w", p, MinBlockedP, errs.ErrBadOptions)
	}
	key := blockedKey{n, p}
	if s, ok := blockedShapes.get(key); ok {
		return s.m, s.k, nil
	}
	m, k, err = blockedSearch(n, p)
	if err == nil {
		blockedShapes.put(key, blockedShape{m, k})
	}
	return m, k, err
}

// blockedSearch is Blocked's bisection over bits per key, for valid n
// and p: about 20 steps of BestBlockedK, thousands of terms of
// BlockedFPR (1.7 ms of CPU at n = 100,000, p = 0.01 on a 2026 EPYC
// core: BenchmarkBlocked).
func blockedSearch(n uint64, p float64) (m uint64, k uint32, err error) {
	fits := func(c float64) bool { // c bits per key
		blocks := math.Ceil(float64(n) * c / hashing.BlockBits)
		mean, spread, _ := BestBlockedK(float64(n) / blocks)
		return mean+3*spread/math.Sqrt(blocks) <= WithMargin(p)
	}
	lo, hi := 0.0, 128.0
	for hi-lo > 1e-4 {
		if c := (lo + hi) / 2; fits(c) {
			hi = c
		} else {
			lo = c
		}
	}
	blocks := math.Ceil(float64(n) * hi / hashing.BlockBits)
	if blocks*hashing.BlockBits > format.MaxBitsV2 {
		return 0, 0, fmt.Errorf("n = %d, p = %v needs %.0f bits, above %d: %w", n, p, blocks*hashing.BlockBits, uint64(format.MaxBitsV2), errs.ErrTooLarge)
	}
	_, _, k = BestBlockedK(float64(n) / blocks)
	return uint64(blocks) * hashing.BlockBits, k, nil
}

// blockedShapes holds Blocked's answers by (n, p), so that a server
// creating keys of one default shape, or sets adding layers of the
// shapes they added before, search once per shape rather than once per
// filter (the search is most of a new filter's CPU). It holds at most
// blockedShapesMax shapes and is emptied when full.
var blockedShapes = shapeMemo{shapes: map[blockedKey]blockedShape{}}

// blockedShapesMax bounds blockedShapes: 4,096 entries of 32 bytes.
const blockedShapesMax = 4096

type blockedKey struct {
	n uint64
	p float64
}

type blockedShape struct {
	m uint64
	k uint32
}

// shapeMemo is a bounded map of Blocked's answers, safe for concurrent
// use.
type shapeMemo struct {
	mu     sync.Mutex
	shapes map[blockedKey]blockedShape
}

func (c *shapeMemo) get(key blockedKey) (blockedShape, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.shapes[key]
	return s, ok
}

func (c *shapeMemo) put(key blockedKey, s blockedShape) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.shapes) >= blockedShapesMax {
		clear(c.shapes)
	}
	c.shapes[key] = s
}

// BestBlockedK returns the k in [1, format.MaxK] with the lowest mean
// BlockedFPR at lambda keys per block, with that mean and its spread.
func BestBlockedK(lambda float64) (mean, spread float64, k uint32) {
	mean = math.Inf(1)
	for j := uint32(1); j <= format.MaxK; j++ {
		m, s := BlockedFPR(lambda, j)
		if m >= mean {
			break // the rate is unimodal in k
		}
		mean, spread, k = m, s, j
	}
	return mean, spread, k
}

// BlockedFPR models a blocked-512 filter whose blocks hold a Poisson(lambda)
// number of keys, each setting k uniform bits of its block. A block holding
// j keys answers a key never added falsely with probability
// f(j) = (1 - (1 - 1/512)^(jk))^k (Putze, Sanders and Singler 2007,
// section 3); mean is E[f] over the Poisson law, the filter's expected
// false-positive rate, and spread is the standard deviation of f, so that
// a filter of B blocks has a rate within mean +- spread/sqrt(B) about two
// times in three.
func BlockedFPR(lambda float64, k uint32) (mean, spread float64) {
	kf := float64(k)
	logKeep := math.Log1p(-1.0 / hashing.BlockBits) // ln(1 - 1/512)
	last := int(lambda + 12*math.Sqrt(lambda) + 30)
	sq, logPj := 0.0, -lambda // ln P(0 keys)
	for j := 0; j <= last; j++ {
		if j > 0 {
			logPj += math.Log(lambda / float64(j))
		}
		f := math.Pow(-math.Expm1(float64(j)*kf*logKeep), kf)
		mean += math.Exp(logPj) * f
		sq += math.Exp(logPj) * f * f
	}
	return mean, math.Sqrt(math.Max(0, sq-mean*mean))
}

// Margin is the share of p that the default layouts are sized for
// at small p, so that the measured false-positive rate at n keys stays at
// or below p despite sampling noise, integer k and the in-block hash's
// departures from independent probes. It costs about 1% more bits. An
// explicit classic layout keeps the textbook sizing at p itself, whose
// expected rate is p.
const Margin = 0.92

// WithMargin returns the rate the default layouts are sized for to stay
// at or below p: p (1 - (1 - Margin)(1 - p)), Margin p at
// small p. The margin shrinks as p nears 1, where a fixed share of p would
// cost many times the bits p needs (0.92 x 0.99 needs 10 times the bits
// of 0.99).
func WithMargin(p float64) float64 { return p * (1 - (1-Margin)*(1-p)) }
