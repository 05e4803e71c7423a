package server

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHistIndexBounds(t *testing.T) {
	for i := 0; i < histBuckets-1; i++ {
		lo, hi := histLower(i), histLower(i+1)
		require.Less(t, lo, hi, "bucket %d", i)
		assert.Equal(t, i, histIndex(lo), "lower bound of %d", i)
		assert.Equal(t, i, histIndex(hi-1), "upper bound of %d", i)
		if lo >= histSub {
			assert.LessOrEqual(t, float64(hi-lo)/float64(lo), 0.125+1e-9, "bucket %d width", i)
		}
	}
	assert.Equal(t, 0, histIndex(-5))
	assert.Equal(t, histBuckets-1, histIndex(1<<62))
}

func TestHistPercentiles(t *testing.T) {
	var h latencyHist
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 10000)
	for i := range vals {
		vals[i] = 100 + rng.Int64N(1_000_000)
		h.record(vals[i], 1)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	s := h.snapshot()
	require.EqualValues(t, len(vals), s.total)
	for _, q := range []float64{0.5, 0.99, 0.999} {
		exact := vals[int(q*float64(len(vals)))-1]
		got := s.percentile(q)
		assert.GreaterOrEqual(t, got, exact, "p%v", q*100)
		assert.LessOrEqual(t, float64(got), float64(exact)*1.126, "p%v", q*100)
	}
	assert.Zero(t, (&histSnap{}).percentile(0.5))
}

func TestHistPowerBuckets(t *testing.T) {
	var h latencyHist
	h.record(500, 1)  // below 1 µs: the first bucket
	h.record(1024, 2) // exactly 2^10 ns: below 2^11
	h.record(3000, 3) // [2048, 4096): below 2^12
	h.record(5e9, 1)  // above 1 s: the last
	up, cum := h.snapshot().powerBuckets()
	assert.Equal(t, []int64{1 << 10, 1 << 11, 1 << 12, 1 << 30}, up)
	assert.Equal(t, []uint64{1, 3, 6, 7}, cum)
}
