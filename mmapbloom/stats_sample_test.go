package mmapbloom

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// sampleLines is the sample size the sampling tests draw (the server's).
const sampleLines = 1024

// TestSampleStatsAgainstStats fills filters of each layout to several
// fractions of their capacity and checks SampleStats (a fixed seed)
// against the exact pass: the fill within 5 standard errors of a mean of
// sampleLines lines (the standard deviation measured over every line of
// the filter), the estimates within the values the formulas give at
// those bounds (classic), or within 5 standard errors of the mean of the
// blocks' own estimates (blocked); the header fields equal.
func TestSampleStatsAgainstStats(t *testing.T) {
	const n = 100_000
	for _, opts := range batchLayouts {
		for _, load := range []float64{0.1, 0.5, 1, 1.5} {
			f := newTestFilter(t, n, 0.01, opts)
			name := fmt.Sprintf("%v/%v/load=%g", f.Header().Layout, f.Header().Scheme, load)
			require.NoError(t, f.AddBatch(keysOf(1, int(load*n))), name)
			exact, err := f.Stats()
			require.NoError(t, err, name)
			got, err := f.SampleStats(sampleLines, 42)
			require.NoError(t, err, name)

			require.Equal(t, [5]any{exact.M, exact.K, exact.N, exact.Count, exact.OverCapacity},
				[5]any{got.M, got.K, got.N, got.Count, got.OverCapacity}, name)
			fillSE, cardSE, fprSE := lineSpread(f)
			t.Logf("%s: fill %.4f, sampled %.4f, standard error of the sample %.5f", name, exact.FillRatio, got.FillRatio, fillSE/math.Sqrt(sampleLines))
			require.InDelta(t, exact.FillRatio, got.FillRatio, 5*fillSE/math.Sqrt(sampleLines), name)
			if f.blocked {
				require.InDelta(t, exact.EstimatedCardinality, got.EstimatedCardinality, 5*cardSE/math.Sqrt(sampleLines), name)
				require.InDelta(t, exact.EstimatedFPR, got.EstimatedFPR, 5*fprSE/math.Sqrt(sampleLines), name)
				continue
			}
			lo, hi := exact.FillRatio-5*fillSE/math.Sqrt(sampleLines), exact.FillRatio+5*fillSE/math.Sqrt(sampleLines)
			m, k := float64(exact.M), float64(exact.K)
			require.GreaterOrEqual(t, got.EstimatedCardinality, -m/k*math.Log1p(-lo), name)
			require.LessOrEqual(t, got.EstimatedCardinality, -m/k*math.Log1p(-hi), name)
			require.GreaterOrEqual(t, got.EstimatedFPR, math.Pow(lo, k), name)
			require.LessOrEqual(t, got.EstimatedFPR, math.Pow(hi, k), name)
			require.InEpsilon(t, load*n, got.EstimatedCardinality, 0.05, name)
		}
	}
}

// lineSpread returns the standard deviations, over every line of f, of
// a line's fill and, for the blocked layout, of a block's cardinality
// estimate scaled to the filter (times the block count) and of its
// false-positive rate.
func lineSpread(f *Filter) (fill, card, fpr float64) {
	total := (len(f.words) + hashing.BlockWords - 1) / hashing.BlockWords
	k := float64(f.hdr.K)
	var fills, cards, fprs []float64
	for i := range total {
		ones := f.lineOnes(uint64(i))
		fills = append(fills, float64(ones)/float64(min(hashing.BlockBits, f.hdr.M-uint64(i)*hashing.BlockBits)))
		c, p := blockEstimate(ones, k)
		cards, fprs = append(cards, c*float64(total)), append(fprs, p)
	}
	return stddev(fills), stddev(cards), stddev(fprs)
}

// stddev is the population standard deviation of xs.
func stddev(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq / float64(len(xs)))
}

// TestSampleStatsSmallIsExact checks that a sample of at least every
// line is the exact pass.
func TestSampleStatsSmallIsExact(t *testing.T) {
	f := newTestFilter(t, 1000, 0.01, nil)
	require.NoError(t, f.AddBatch(keysOf(2, 700)))
	exact, err := f.Stats()
	require.NoError(t, err)
	got, err := f.SampleStats(sampleLines, 1)
	require.NoError(t, err)
	require.Equal(t, exact, got)
}

// TestSetSampleStats checks that a set's SampleStats describes each live
// layer, oldest first, as the layers' own exact Stats do within the
// sampling bound of their fill.
func TestSetSampleStats(t *testing.T) {
	s, err := CreateSet(t.TempDir()+"/set", 20_000, 0.01, &SetOptions{Expansion: 2})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	require.NoError(t, s.AddBatch(keysOf(3, 50_000)))
	exact, err := s.Stats()
	require.NoError(t, err)
	require.Greater(t, len(exact), 1, "the set grew")
	got, err := s.SampleStats(sampleLines, 7)
	require.NoError(t, err)
	require.Len(t, got, len(exact))
	for i := range exact {
		require.Equal(t, exact[i].M, got[i].M, i)
		require.Equal(t, exact[i].Count, got[i].Count, i)
		require.InDelta(t, exact[i].FillRatio, got[i].FillRatio, 0.02, i) // 5 x 0.05 / sqrt(1024) = 0.008
	}
}
