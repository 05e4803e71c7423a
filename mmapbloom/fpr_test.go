package mmapbloom

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// urlKey writes a URL-like key (about 60 bytes) numbered i of a family
// into buf and returns it; families never share keys.
func urlKey(buf []byte, family byte, i uint64) []byte {
	var x [8]byte
	binary.LittleEndian.PutUint64(x[:], i*0x9e3779b97f4a7c15)
	return fmt.Appendf(buf[:0], "https://host%d.example.%c/path/%x/item?id=%d", i%9973, 'a'+family, x, i)
}

// measureFPR adds n keys of family 0 and returns the share of q keys of
// family 1 (never added) that test present. It also checks every added
// key tests present. Keys go through the batch calls, in chunks.
func measureFPR(t *testing.T, f *Filter, n, q int) float64 {
	t.Helper()
	const chunk = 1 << 16
	present := make([]bool, chunk)
	for start := 0; start < n; start += chunk {
		keys := keysFrom(0, start, min(chunk, n-start))
		require.NoError(t, f.AddBatch(keys))
		require.NoError(t, f.TestBatch(keys, present))
		require.NotContains(t, present[:len(keys)], false, "false negative")
	}
	fp := 0
	for start := 0; start < q; start += chunk {
		keys := keysFrom(1, start, min(chunk, q-start))
		require.NoError(t, f.TestBatch(keys, present))
		for _, p := range present[:len(keys)] {
			if p {
				fp++
			}
		}
	}
	return float64(fp) / float64(q)
}

// TestMeasuredFPR fills filters to capacity n and checks the measured
// false-positive rate over q keys never added: at most p for the blocked
// layout; for an explicit classic layout, whose documents' sizing expects
// p itself (a little more with k rounded), at most 1.05 p plus three
// standard deviations of the count. The race detector run measures the
// two largest p only; MMAPBLOOM_LONG=1 adds p = 1e-5 and 1e-6.
func TestMeasuredFPR(t *testing.T) {
	ps, n := []float64{0.1, 0.01, 1e-3, 1e-4}, 100_000
	if raceEnabled {
		ps, n = ps[:2], 20_000
	}
	if os.Getenv("MMAPBLOOM_LONG") != "" {
		ps = append(ps, 1e-5, 1e-6)
	}
	for _, layout := range []format.Layout{format.LayoutClassic, format.LayoutBlocked512} {
		for _, p := range ps {
			t.Run(fmt.Sprintf("%v/p=%g", layout, p), func(t *testing.T) {
				q := int(math.Max(5e5, 300/p))
				f := newTestFilter(t, uint64(n), p, &CreateOptions{Layout: layout, Seed: 42, FixedSeed: true})
				fpr := measureFPR(t, f, n, q)
				t.Logf("%v p=%g m/n=%.2f k=%d: measured FPR %.3g over %d keys", layout, p, float64(f.M())/float64(n), f.K(), fpr, q)
				limit := p
				if layout == format.LayoutClassic {
					limit = p * (1.05 + 3/math.Sqrt(p*float64(q)))
				}
				require.LessOrEqual(t, fpr, limit)
			})
		}
	}
}

// TestDefaultSizingBelowBlockedFloor checks the layout Create picks for p
// below MinBlockedP (classic, sized for 0.92 p), whose rates are too small
// to measure here, by its theoretical rate at n.
func TestDefaultSizingBelowBlockedFloor(t *testing.T) {
	for _, p := range []float64{9.9e-7, 1e-7, 1e-8, 1e-9} {
		f := newTestFilter(t, 1000, p, nil)
		require.Equal(t, format.LayoutClassic, f.Header().Layout)
		require.LessOrEqual(t, FalsePositiveRate(f.M(), f.K(), f.N()), p, "p=%g", p)
	}
	f := newTestFilter(t, 1_000_000, MinBlockedP, nil)
	require.Equal(t, format.LayoutBlocked512, f.Header().Layout)
	f = newTestFilter(t, 1000, MinBlockedP, nil) // blocked would need 1.6x the classic bits
	require.Equal(t, format.LayoutClassic, f.Header().Layout)
}
