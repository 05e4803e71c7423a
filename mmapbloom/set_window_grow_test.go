package mmapbloom

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestWindowedSetGrows fills one window of a windowed set with five times
// its n: with an expansion the window grows into layers of n, 2n and 4n
// keys at (p/W)/2, /4, /8, every key stays present, the false-positive
// rate stays below p/W, and all the window's layers expire together;
// without one the window keeps its single layer and says it is over
// capacity.
func TestWindowedSetGrows(t *testing.T) {
	const n, p, keep, keys = 1000, 0.03, 3, 5000
	for _, expansion := range []uint32{0, 2} {
		t.Run(fmt.Sprintf("expansion=%d", expansion), func(t *testing.T) {
			clock := newFakeClock()
			dir := filepath.Join(t.TempDir(), "w.bfset")
			s, err := CreateSet(dir, n, p, &SetOptions{Window: time.Hour, Keep: keep, Expansion: expansion, Now: clock.now})
			require.NoError(t, err)
			defer s.Close()
			assert.Equal(t, expansion, s.Expansion())
			assert.Equal(t, time.Hour, s.Window())
			batch := make([][]byte, 0, keys)
			for i := range keys {
				if i%2 == 0 {
					require.NoError(t, s.Add(setKey("k", i)))
				} else {
					batch = append(batch, setKey("k", i))
				}
			}
			require.NoError(t, s.AddBatch(batch))
			info, err := s.Info()
			require.NoError(t, err)
			over, err := s.OverCapacity()
			require.NoError(t, err)
			if expansion == 0 {
				assert.Equal(t, 1, s.Layers())
				assert.True(t, over, "a window that does not grow holds 5n keys")
				t.Logf("window of %d keys in 1 layer of n = %d: %d false positives of 100,000 (p/W %g)", keys, n, countPresent(t, s, "absent", 100_000), p/keep)
				return
			}
			require.Len(t, info.Layers, 3)
			for j, l := range info.Layers {
				assert.Equal(t, uint64(n<<j), l.N, "layer %d", j)
				assert.InDelta(t, p/keep/2/math.Pow(2, float64(j)), l.P, 1e-12, "layer %d", j)
				assert.Equal(t, info.Layers[0].WindowStart, l.WindowStart, "layer %d in the same window", j)
			}
			assert.False(t, over)
			present := make([]bool, keys)
			all := make([][]byte, keys)
			for i := range all {
				all[i] = setKey("k", i)
			}
			require.NoError(t, s.TestBatch(all, present))
			assert.NotContains(t, present, false, "every key of the window present")
			// The set has a random seed: the bound fails by chance once in
			// a million runs at rate p/W (testkit.FalsePositiveLimit).
			fp := countPresent(t, s, "absent", 100_000)
			assert.LessOrEqual(t, fp, testkit.FalsePositiveLimit(p/keep, 100_000), "false positives of 100,000 absent keys (window budget p/W = %g)", p/keep)
			t.Logf("window of %d keys in %d layers: %d false positives of 100,000 (p/W %g)", keys, len(info.Layers), fp, p/keep)

			// Two more windows keep the grown one; a third drops its
			// three layers together.
			for w := 1; w <= keep; w++ {
				clock.advance(time.Hour)
				require.NoError(t, s.Add(setKey("w", w)))
			}
			assert.Equal(t, keep, s.Layers())
			require.NoError(t, s.TestBatch(all, present))
			assert.Less(t, countTrue(present), keys/100, "the grown window expired")
			for _, l := range info.Layers {
				_, err := os.Stat(filepath.Join(dir, l.File))
				require.ErrorIs(t, err, os.ErrNotExist, "layer %s unlinked", l.File)
			}
		})
	}
}

// countPresent returns how many of count keys of family fam s holds.
func countPresent(t *testing.T, s *Set, fam string, count int) int {
	t.Helper()
	keys := make([][]byte, count)
	for i := range keys {
		keys[i] = setKey(fam, i)
	}
	present := make([]bool, count)
	require.NoError(t, s.TestBatch(keys, present))
	return countTrue(present)
}

// countTrue returns the number of true entries.
func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
