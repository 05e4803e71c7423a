package mmapbloom

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestStatsEstimates fills filters of each layout to half and to full
// capacity and checks the estimates against what was added and measured.
func TestStatsEstimates(t *testing.T) {
	const n = 20_000
	for _, opts := range batchLayouts {
		f := newTestFilter(t, n, 0.01, opts)
		name := fmt.Sprintf("%v/%v", f.Header().Layout, f.Header().Scheme)
		require.NoError(t, f.AddBatch(keysOf(0, n/2)))
		s, err := f.Stats()
		require.NoError(t, err, name)
		require.InEpsilon(t, n/2, s.EstimatedCardinality, 0.03, name)
		require.Less(t, s.EstimatedFPR, 0.01/4, name)
		require.False(t, s.OverCapacity, name)

		require.NoError(t, f.AddBatch(keysFrom(0, n/2, n/2)))
		s, err = f.Stats()
		require.NoError(t, err, name)
		require.InEpsilon(t, n, s.EstimatedCardinality, 0.03, name)
		require.LessOrEqual(t, s.TheoreticalFPR, 0.0101, name) // classic's k rounding: a hair above p
		require.Greater(t, s.TheoreticalFPR, 0.007, name)
		require.InEpsilon(t, s.TheoreticalFPR, s.EstimatedFPR, 0.15, name)
		require.Equal(t, testkit.SequentialCount(f, f.countCalls, keysOf(0, n)), s.Count, name)
		require.InDelta(t, float64(s.SetBits)/float64(s.M), s.FillRatio, 1e-12, name)

		require.NoError(t, f.AddBatch(keysFrom(0, n, n/10)))
		s, err = f.Stats()
		require.NoError(t, err, name)
		require.True(t, s.OverCapacity, name)
	}
}
