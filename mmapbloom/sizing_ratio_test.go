package mmapbloom

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// TestDefaultSizeOverClassic sweeps p from 1e-12 to 0.999: the default
// layout's m is never more than MaxDefaultRatio times the classic m for
// the same n and p. It was 4.6 times at p = 0.9 and 47.8 at 0.99 (a 12 GB
// file for n = 45*2^31 at p = 0.99), when blocked sizing never went below
// one bit per key.
func TestDefaultSizeOverClassic(t *testing.T) {
	for _, n := range []uint64{1000, 1_000_000, 45 << 31} {
		for e := -12.0; e <= 0; e += 0.25 {
			p := math.Min(math.Pow(10, e), 0.999)
			o, sizeFor := withDefaults(nil, n, p)
			m, _, err := o.size(n, sizeFor)
			require.NoError(t, err, "n=%d p=%g", n, p)
			cm, _, err := OptimalClassic(n, p)
			require.NoError(t, err)
			require.LessOrEqual(t, float64(m)/float64(cm), MaxDefaultRatio, "n=%d p=%g %v: m=%d, classic %d", n, p, o.Layout, m, cm)
		}
	}
	m, _, err := OptimalBlocked(45<<31, 0.99)
	require.NoError(t, err)
	cm, _, err := OptimalClassic(45<<31, 0.99)
	require.NoError(t, err)
	require.Equal(t, sizing.OneProbeBits(45<<31, 0.99), cm, "the formulas' 253 MB answer 99.99% of absent keys present")
	require.Less(t, float64(m), 1.03*float64(cm), "n = 45*2^31 at p = 0.99: %d MB blocked, %d MB classic", m>>23, cm>>23)
}

// TestLargePMeasured measures the false-positive rate at n keys for p
// from 0.5 to 0.99, for the default layout and an explicit classic one:
// at most p plus three standard deviations (of the count, and of the
// fill of a classic filter sized for p itself). Classic filters of the
// formulas' m with k = 1 gave 0.9999 at p = 0.99.
func TestLargePMeasured(t *testing.T) {
	const n, q = 20_000, 100_000
	for _, p := range []float64{0.5, 0.7, 0.9, 0.99} {
		for _, opts := range []*CreateOptions{nil, {Layout: format.LayoutClassic}} {
			t.Run(fmt.Sprintf("%s/p=%g", layoutName(opts), p), func(t *testing.T) {
				f := newTestFilter(t, n, p, withSeed(opts, 3))
				fpr := measureFPR(t, f, n, q)
				// Three standard deviations of the count over q keys and of
				// the filter's fill (k = 1 here: its rate is its fill).
				limit := p + 3*math.Sqrt(p*(1-p)*(1.0/q+1/float64(f.M())))
				t.Logf("m/n=%.3f k=%d: measured %.4f, limit %.4f", float64(f.M())/n, f.K(), fpr, limit)
				require.LessOrEqual(t, fpr, limit)
			})
		}
	}
}
