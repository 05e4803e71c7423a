package obs

import (
	"math/bits"
	"sync/atomic"
)

// Hist counts durations in nanoseconds in log-linear buckets: values
// below 8 ns one bucket each, then every power of two split into 8
// equal sub-buckets (at most 12.5% apart, as HdrHistogram with one
// significant digit), up to 2^40 ns (about 18 minutes; longer durations
// count in the last bucket). Recording is one atomic add, no lock.
type Hist struct {
	n [buckets]atomic.Uint64
}

const (
	subBits = 3
	sub     = 1 << subBits
	top     = 40
	buckets = (top - subBits + 1) * sub
)

// index returns the bucket of a duration of ns nanoseconds (negative
// durations count as 0).
func index(ns int64) int {
	if ns < sub {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1
	i := (e-subBits+1)*sub + int(uint64(ns)>>(e-subBits))&(sub-1)
	return min(i, buckets-1)
}

// lower returns the smallest duration, in ns, bucket i counts.
func lower(i int) int64 {
	if i < sub {
		return int64(i)
	}
	e := i/sub - 1 + subBits
	return int64(sub+i%sub) << (e - subBits)
}

// Record counts n durations of ns nanoseconds each.
func (h *Hist) Record(ns int64, n uint64) { h.n[index(ns)].Add(n) }

// Snapshot returns a copy of h's counts, each read at some moment of
// the copy.
func (h *Hist) Snapshot() *Snapshot {
	s := &Snapshot{}
	for i := range h.n {
		s.n[i] = h.n[i].Load()
		s.Total += s.n[i]
	}
	return s
}

// Reset sets every count to 0.
func (h *Hist) Reset() {
	for i := range h.n {
		h.n[i].Store(0)
	}
}

// Snapshot is a copy of a Hist's counts.
type Snapshot struct {
	n [buckets]uint64
	// Total is the sum of the counts: the durations recorded.
	Total uint64
}

// Percentile returns the duration in ns below which a fraction q of the
// counts lie: the top of the bucket holding the q-th count (0 if
// empty).
func (s *Snapshot) Percentile(q float64) int64 {
	if s.Total == 0 {
		return 0
	}
	rank := uint64(q*float64(s.Total) + 0.5)
	rank = max(rank, 1)
	var cum uint64
	for i, n := range s.n {
		cum += n
		if cum >= rank {
			return lower(i+1) - 1
		}
	}
	return lower(buckets) - 1
}

// PowerBuckets returns Redis's LATENCY HISTOGRAM buckets: upper bounds
// in ns of 1024 ns times a power of two, up to 2^30 ns (about 1 s;
// longer durations count in the last), each with the cumulative count
// of the durations below it; only the bounds where the count grows are
// listed.
func (s *Snapshot) PowerBuckets() (upperNs []int64, cum []uint64) {
	const first, last = 10, 30 // 2^10 ns (1 µs) ... 2^30 ns (about 1 s)
	var c, prev uint64
	p := first
	for i, n := range s.n {
		for lower(i) >= int64(1)<<p && p < last {
			if c > prev {
				upperNs, cum, prev = append(upperNs, int64(1)<<p), append(cum, c), c
			}
			p++
		}
		c += n
	}
	if c > prev {
		upperNs, cum = append(upperNs, int64(1)<<p), append(cum, c)
	}
	return upperNs, cum
}

// Below returns, per bound (ns, each a power of two, increasing), the
// count of durations below it.
func (s *Snapshot) Below(bounds []int64) []uint64 {
	out := make([]uint64, len(bounds))
	var c uint64
	j := 0
	for i, n := range s.n {
		for j < len(bounds) && lower(i) >= bounds[j] {
			out[j] = c
			j++
		}
		c += n
	}
	for ; j < len(bounds); j++ {
		out[j] = c
	}
	return out
}
