package obs

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHistIndexBounds: the buckets are contiguous, each at most 12.5%
// wide above 8 ns, and index and lower agree at both ends of each.
func TestHistIndexBounds(t *testing.T) {
	for i := 0; i < buckets-1; i++ {
		lo, hi := lower(i), lower(i+1)
		require.Less(t, lo, hi, "bucket %d", i)
		assert.Equal(t, i, index(lo), "lower bound of %d", i)
		assert.Equal(t, i, index(hi-1), "upper bound of %d", i)
		if lo >= sub {
			assert.LessOrEqual(t, float64(hi-lo)/float64(lo), 0.125+1e-9, "bucket %d width", i)
		}
	}
	assert.Equal(t, 0, index(-5))
	assert.Equal(t, buckets-1, index(1<<62))
}

// TestHistPercentiles: a percentile is at or above the exact one and
// at most one bucket width (12.5%) above it.
func TestHistPercentiles(t *testing.T) {
	var h Hist
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 10000)
	for i := range vals {
		vals[i] = 100 + rng.Int64N(1_000_000)
		h.Record(vals[i], 1)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	s := h.Snapshot()
	require.EqualValues(t, len(vals), s.Total)
	for _, q := range []float64{0.5, 0.99, 0.999} {
		exact := vals[int(q*float64(len(vals)))-1]
		got := s.Percentile(q)
		assert.GreaterOrEqual(t, got, exact, "p%v", q*100)
		assert.LessOrEqual(t, float64(got), float64(exact)*1.126, "p%v", q*100)
	}
	assert.Zero(t, (&Snapshot{}).Percentile(0.5))
}

func TestHistPowerBuckets(t *testing.T) {
	var h Hist
	h.Record(500, 1)  // below 1 µs: the first bucket
	h.Record(1024, 2) // exactly 2^10 ns: below 2^11
	h.Record(3000, 3) // [2048, 4096): below 2^12
	h.Record(5e9, 1)  // above 1 s: the last
	up, cum := h.Snapshot().PowerBuckets()
	assert.Equal(t, []int64{1 << 10, 1 << 11, 1 << 12, 1 << 30}, up)
	assert.Equal(t, []uint64{1, 3, 6, 7}, cum)
}

// TestHistBelow: per power-of-two bound, the durations below it; a
// bound past every duration counts them all.
func TestHistBelow(t *testing.T) {
	var h Hist
	h.Record(-1, 1) // counts as 0 ns
	h.Record(1000, 2)
	h.Record(1024, 4)
	h.Record(1<<20, 8)
	bounds := []int64{1, 1 << 10, 1 << 11, 1 << 20, 1 << 21, 1 << 40}
	assert.Equal(t, []uint64{1, 3, 7, 7, 15, 15}, h.Snapshot().Below(bounds))
	assert.Empty(t, h.Snapshot().Below(nil))
}

func TestHistReset(t *testing.T) {
	var h Hist
	h.Record(5, 3)
	h.Record(1<<30, 1)
	require.EqualValues(t, 4, h.Snapshot().Total)
	h.Reset()
	assert.Equal(t, &Snapshot{}, h.Snapshot())
}
