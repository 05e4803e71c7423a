package mmapbloom

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOptimalBlockedNearOptimum checks blocked sizing against the bits per
// key that a 512-bit blocked filter with the best k needs (the issue's
// table, from the Poisson model of keys per block): within 3% at large n.
func TestOptimalBlockedNearOptimum(t *testing.T) {
	for _, tc := range []struct {
		p, bitsPerKey float64
		k             uint32
	}{
		{1e-2, 9.93, 6},
		{1e-3, 15.49, 9},
		{1e-4, 21.93, 12},
		{1e-6, 38.59, 16},
	} {
		t.Run(fmt.Sprintf("p=%g", tc.p), func(t *testing.T) {
			n := uint64(50_000_000)
			m, k, err := OptimalBlocked(n, tc.p)
			require.NoError(t, err)
			require.Zero(t, m%blockBits)
			got := float64(m) / float64(n)
			t.Logf("p=%g: %.3f bits/key (optimum %.2f, +%.1f%%), k=%d", tc.p, got, tc.bitsPerKey, 100*(got/tc.bitsPerKey-1), k)
			require.GreaterOrEqual(t, got, tc.bitsPerKey*0.99)
			require.LessOrEqual(t, got, tc.bitsPerKey*1.03)
			require.InDelta(t, tc.k, k, 1)
		})
	}
}

func TestOptimalBlockedRefuses(t *testing.T) {
	_, _, err := OptimalBlocked(1000, MinBlockedP/2)
	require.ErrorIs(t, err, ErrBadOptions)
	_, _, err = OptimalBlocked(0, 0.01)
	require.ErrorIs(t, err, ErrInvalidN)
	_, _, err = OptimalBlocked(1000, 1)
	require.ErrorIs(t, err, ErrInvalidP)
}
