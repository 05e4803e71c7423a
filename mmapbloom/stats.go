package mmapbloom

import (
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// Stats describes a filter's header and the state of its bit array.
type Stats struct {
	M     uint64  // bits in the array
	K     uint32  // bit positions (hash functions) per key
	N     uint64  // capacity sized for; 0 when created from m and k
	P     float64 // false-positive probability asked for at n; 0 likewise
	Count uint64  // keys added, as recorded in the header (see Filter.Count)

	// SetBits is the number of bits set; FillRatio is SetBits / M.
	SetBits   uint64
	FillRatio float64

	// EstimatedCardinality estimates the number of distinct keys added
	// from the set bits X: -(m/k) ln(1 - X/m) (Swamidass and Baldi 2007,
	// "Mathematical correction for fingerprint similarity measures"),
	// summed block by block for the blocked layout. +Inf when every bit
	// (of some block) is set.
	EstimatedCardinality float64

	// EstimatedFPR is the probability that a key never added tests present
	// now: FillRatio^k, or its mean over blocks for the blocked layout.
	EstimatedFPR float64

	// TheoreticalFPR is the false-positive rate expected at n keys,
	// (1 - e^(-kn/m))^k (Bloom 1970, see FalsePositiveRate), or the
	// Poisson block model of OptimalBlocked for the blocked layout; 0 when
	// n is 0.
	TheoreticalFPR float64

	// OverCapacity is true when Count > N > 0: the filter holds more
	// distinct keys than it was sized for and its false-positive rate
	// exceeds P (see Filter.OverCapacity).
	OverCapacity bool
}

// Stats counts the set bits (a pass over the whole array, O(m)) and
// returns them with the header fields and the estimates derived from them.
// For the blocked layout the estimates are taken block by block, since
// keys fill blocks unevenly. Errors: ErrClosed, ErrFileChanged.
func (f *Filter) Stats() (Stats, error) { return f.stats(f.scanBits) }

// stats returns the header fields of f with the bit count and estimates
// count fills in (inside run), and the figures derived from them.
func (f *Filter) stats(count func(*Stats)) (Stats, error) {
	var s Stats
	err := f.run(false, false, func() error {
		s = Stats{M: f.hdr.M, K: f.hdr.K, N: f.hdr.N, P: f.hdr.P, Count: f.loadCount()}
		count(&s)
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	s.FillRatio = float64(s.SetBits) / float64(s.M)
	s.TheoreticalFPR = f.ExpectedFPR(s.N)
	s.OverCapacity = s.N > 0 && s.Count > s.N
	return s, nil
}

// scanBits fills the bit count and the estimates of s, whose M, K and N
// are set, with a pass over the array. The caller is inside run.
func (f *Filter) scanBits(s *Stats) {
	defer mapping.Sequential(f.data)()
	if f.blocked {
		f.blockStats(s)
		return
	}
	for i := range f.words {
		s.SetBits += uint64(bits.OnesCount64(atomic.LoadUint64(&f.words[i])))
	}
	m, k := float64(s.M), float64(s.K)
	s.EstimatedCardinality = -m / k * math.Log1p(-float64(s.SetBits)/m)
	s.EstimatedFPR = math.Pow(float64(s.SetBits)/m, k)
}

// blockStats fills the bit count and estimates of a blocked filter: the
// cardinality and false-positive estimates summed over blocks, each block
// a classic filter of 512 bits.
func (f *Filter) blockStats(s *Stats) {
	k := float64(s.K)
	blocks := len(f.words) / hashing.BlockWords
	for b := range blocks {
		set := f.lineOnes(uint64(b))
		card, fpr := blockEstimate(set, k)
		s.SetBits += uint64(set)
		s.EstimatedCardinality += card
		s.EstimatedFPR += fpr / float64(blocks)
	}
}

// ExpectedFPR returns the false-positive rate expected of this filter's
// m, k and layout with n distinct keys added, from the header alone (no
// pass over the array): (1 - e^(-kn/m))^k (FalsePositiveRate) for the
// classic layout, the Poisson model of keys per block of OptimalBlocked
// for blocked512; 0 for n = 0. ExpectedFPR(Count()) is the rate to expect
// now, ExpectedFPR(n) the one the filter was sized for.
func (f *Filter) ExpectedFPR(n uint64) float64 {
	if n == 0 {
		return 0
	}
	if !f.blocked {
		return FalsePositiveRate(f.hdr.M, f.hdr.K, n)
	}
	fpr, _ := sizing.BlockedFPR(float64(n)/float64(f.hdr.M/hashing.BlockBits), f.hdr.K)
	return fpr
}

// FalsePositiveRate returns the expected false-positive rate of a classic
// Bloom filter of m bits and k hash functions holding n keys:
// (1 - e^(-kn/m))^k (Bloom 1970; the false_positive_rate of the usual C
// filters). It returns 0 for n = 0.
func FalsePositiveRate(m uint64, k uint32, n uint64) float64 {
	if n == 0 || m == 0 {
		return 0
	}
	kf := float64(k)
	return math.Pow(-math.Expm1(-kf*float64(n)/float64(m)), kf)
}

// Resident returns how many bytes of the filter's file (header and bit
// array) the page cache holds now: mincore(2) over the Filter's own
// mapping, which reads no page of it. A resident page counts its size in bytes, the file's last page
// the bytes of the file it holds. Errors: ErrClosed, ErrFileChanged,
// mincore's errno (wrapped), errors.ErrUnsupported off Linux (where no
// mincore is asked).
func (f *Filter) Resident() (uint64, error) {
	var n uint64
	err := f.run(false, false, func() error {
		var err error
		n, err = mapping.ResidentBytes(f.data)
		return err
	})
	return n, err
}
