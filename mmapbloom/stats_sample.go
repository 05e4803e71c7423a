package mmapbloom

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// SampleStats is Stats from a sample of the bit array instead of a pass
// over all of it: lines 64-byte lines (8 words; a block of the blocked
// layout) drawn uniformly with replacement by a PCG seeded with seed, so
// the work is bounded by lines whatever the filter's size. When lines
// is at least the array's line count it is Stats itself (exact). SetBits
// is the sampled count scaled to M; FillRatio, EstimatedCardinality and
// EstimatedFPR are computed from the sample as Stats computes them from
// the whole array (Swamidass and Baldi 2007 for the cardinality;
// FillRatio^k, or the mean of fill^k over sampled blocks for the
// blocked layout); Count, N, P, TheoreticalFPR and OverCapacity come
// from the header as in Stats.
//
// Sampling error: the FillRatio of L lines has a standard error of
// sqrt(f(1-f)/(512 L)) for the classic layout (its bits are nearly
// independent: at most 0.0007 for L = 1024, at f = 0.5); for the blocked
// layout the spread of keys over blocks adds the Poisson variation of
// each block's keys (about 0.0016 for L = 1024 at the sized load). The
// cardinality's relative error is about one over the square root of the
// set bits sampled (about 10% at a fill of 0.0002 and L = 1024).
// Errors: ErrClosed, ErrFileChanged.
func (f *Filter) SampleStats(lines int, seed uint64) (Stats, error) {
	total := (len(f.words) + hashing.BlockWords - 1) / hashing.BlockWords
	if lines >= total {
		return f.Stats()
	}
	return f.stats(func(s *Stats) { f.sampleBits(s, max(lines, 1), seed) })
}

// sampleBits fills the bit count and estimates of s, whose M, K and N
// are set, from lines lines drawn by a PCG seeded with seed. The caller
// is inside run.
func (f *Filter) sampleBits(s *Stats, lines int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	total := uint64(len(f.words)+hashing.BlockWords-1) / hashing.BlockWords
	k := float64(s.K)
	var set, seen uint64
	var card, fpr float64
	for range lines {
		i := rng.Uint64N(total)
		n := f.lineOnes(i)
		set += uint64(n)
		seen += min(hashing.BlockBits, s.M-i*hashing.BlockBits)
		if f.blocked {
			c, p := blockEstimate(n, k)
			card += c
			fpr += p
		}
	}
	fill := float64(set) / float64(seen)
	s.SetBits = uint64(math.Round(fill * float64(s.M)))
	if f.blocked {
		card *= float64(total) / float64(lines)
		s.EstimatedCardinality, s.EstimatedFPR = card, fpr/float64(lines)
		return
	}
	m := float64(s.M)
	s.EstimatedCardinality = -m / k * math.Log1p(-fill)
	s.EstimatedFPR = math.Pow(fill, k)
}

// lineOnes returns the set bits of the i-th 8-word line of the array
// (the last one may be shorter in the classic layout).
func (f *Filter) lineOnes(i uint64) int {
	end := min(uint64(len(f.words)), (i+1)*hashing.BlockWords)
	var n int
	for w := i * hashing.BlockWords; w < end; w++ {
		n += bits.OnesCount64(atomic.LoadUint64(&f.words[w]))
	}
	return n
}

// blockEstimate returns a 512-bit block's cardinality estimate,
// -(512/k) ln(1 - fill) (Swamidass and Baldi 2007), and its
// false-positive rate, fill^k, for set bits of it set.
func blockEstimate(set int, k float64) (card, fpr float64) {
	fill := float64(set) / hashing.BlockBits
	return -hashing.BlockBits / k * math.Log1p(-fill), math.Pow(fill, k)
}
