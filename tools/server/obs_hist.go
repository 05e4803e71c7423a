package server

import (
	"math/bits"
	"sync/atomic"
)

// latencyHist counts durations in nanoseconds in log-linear buckets:
// values below 8 ns one bucket each, then every power of two split into
// 8 equal sub-buckets (at most 12.5% apart, as HdrHistogram with one
// significant digit), up to 2^histTop ns (about 18 minutes; longer
// durations count in the last bucket). Recording is one atomic add, no
// lock; readers see each bucket's count at some moment of their read.
type latencyHist struct {
	n [histBuckets]atomic.Uint64
}

const (
	histSubBits = 3
	histSub     = 1 << histSubBits
	histTop     = 40
	histBuckets = (histTop - histSubBits + 1) * histSub
)

// histIndex returns the bucket of a duration of ns nanoseconds.
func histIndex(ns int64) int {
	if ns < histSub {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1
	i := (e-histSubBits+1)*histSub + int(uint64(ns)>>(e-histSubBits))&(histSub-1)
	return min(i, histBuckets-1)
}

// histLower returns the smallest duration, in ns, bucket i counts.
func histLower(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	e := i/histSub - 1 + histSubBits
	return int64(histSub+i%histSub) << (e - histSubBits)
}

func (h *latencyHist) record(ns int64, n uint64) { h.n[histIndex(ns)].Add(n) }

// histSnap is a copy of a latencyHist's counts and their total.
type histSnap struct {
	n     [histBuckets]uint64
	total uint64
}

func (h *latencyHist) snapshot() *histSnap {
	s := &histSnap{}
	for i := range h.n {
		s.n[i] = h.n[i].Load()
		s.total += s.n[i]
	}
	return s
}

func (h *latencyHist) reset() {
	for i := range h.n {
		h.n[i].Store(0)
	}
}

// percentile returns the duration in ns below which a fraction q of the
// counts lie: the top of the bucket holding the q-th count (0 if empty).
func (s *histSnap) percentile(q float64) int64 {
	if s.total == 0 {
		return 0
	}
	rank := uint64(q*float64(s.total) + 0.5)
	rank = max(rank, 1)
	var cum uint64
	for i, n := range s.n {
		cum += n
		if cum >= rank {
			return histLower(i+1) - 1
		}
	}
	return histLower(histBuckets) - 1
}

// powerBuckets returns Redis's LATENCY HISTOGRAM buckets: bounds of
// 1024 ns times a power of two, up to 2^30 ns (about 1 s; longer
// durations count in the last), each with the cumulative count of the
// durations below it; only the bounds where the count grows are listed.
func (s *histSnap) powerBuckets() (upperNs []int64, cum []uint64) {
	const first, last = 10, 30 // 2^10 ns (1 µs) ... 2^30 ns (about 1 s)
	var c, prev uint64
	p := first
	for i, n := range s.n {
		for histLower(i) >= int64(1)<<p && p < last {
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

// below returns, per bound (ns, each a power of two, increasing), the
// count of durations below it.
func (s *histSnap) below(bounds []int64) []uint64 {
	out := make([]uint64, len(bounds))
	var c uint64
	j := 0
	for i, n := range s.n {
		for j < len(bounds) && histLower(i) >= bounds[j] {
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
