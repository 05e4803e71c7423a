package mmapbloom

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// measureSetFPR tests trials keys never added and returns the fraction
// that test present.
func measureSetFPR(t *testing.T, s *Set, trials int) float64 {
	t.Helper()
	const batch = 4096
	keys := make([][]byte, batch)
	present := make([]bool, batch)
	hits := 0
	for start := 0; start < trials; start += batch {
		n := min(batch, trials-start)
		for i := range n {
			keys[i] = setKey("absent", start+i)
		}
		require.NoError(t, s.TestBatch(keys[:n], present[:n]))
		for _, ok := range present[:n] {
			if ok {
				hits++
			}
		}
	}
	return float64(hits) / float64(trials)
}

// requireFPR requires a measured rate at most the bound a count of
// false positives of a set (which has a random seed) over trials keys
// exceeds by chance once in a million runs where the set's rate is p
// (testkit.FalsePositiveLimit). Three standard deviations, the bound
// before, are exceeded once in 740 runs where the rate is p, as a
// windowed set's steady state nearly is.
func requireFPR(t *testing.T, got, p float64, trials int, what string) {
	t.Helper()
	limit := float64(testkit.FalsePositiveLimit(p, trials)) / float64(trials)
	t.Logf("%s: measured FPR %.5f over %d keys (p = %g, limit %.5f)", what, got, trials, p, limit)
	assert.LessOrEqual(t, got, limit, what)
}

// addRange adds keys [from, to) of family fam in batches.
func addRange(t *testing.T, s *Set, fam string, from, to int) {
	t.Helper()
	keys := make([][]byte, 0, 4096)
	for i := from; i < to; i++ {
		keys = append(keys, setKey(fam, i))
		if len(keys) == cap(keys) || i == to-1 {
			require.NoError(t, s.AddBatch(keys))
			keys = keys[:0]
		}
	}
}

// TestScalableSetFPR measures the false-positive rate of a scalable set
// at 10 and 100 times its initial capacity, for RedisBloom's and bloomd's
// parameters. MMAPBLOOM_STRESS=1 runs a 10 times larger set and more
// trials.
func TestScalableSetFPR(t *testing.T) {
	n0, trials := 2000, 200_000
	if raceEnabled { // the race detector slows the probes tenfold; the checks stay
		n0, trials = 500, 50_000
	}
	if testkit.Stress() {
		n0, trials = 20_000, 2_000_000
	}
	const p = 0.01
	for _, o := range []SetOptions{{}, {Expansion: 4, Tightening: 0.9}} {
		dir := filepath.Join(t.TempDir(), "fpr.bfset")
		s, err := CreateSet(dir, uint64(n0), p, &o)
		require.NoError(t, err)
		added := 0
		for _, x := range []int{10, 100} {
			addRange(t, s, "k", added, x*n0)
			added = x * n0
			requireFPR(t, measureSetFPR(t, s, trials), p, trials,
				fmt.Sprintf("expansion %d, %dx n0, %d layers", s.Expansion(), x, s.Layers()))
		}
		require.NoError(t, s.Close())
	}
}

// TestWindowedSetFPR measures the false-positive rate of a windowed set
// at steady state: every window holds n new keys, W windows kept, after
// 2W windows. MMAPBLOOM_STRESS=1 adds the README's crawler cases at 1/100
// scale: 50,000 keys a day, p = 0.001, W = 31 windows of a day against
// W = 4 of 10 days.
func TestWindowedSetFPR(t *testing.T) {
	tests := []struct {
		n, keep, trials int
		p               float64
	}{{5000, 4, 200_000, 0.01}}
	if raceEnabled {
		tests[0].n, tests[0].trials = 1000, 50_000
	}
	if testkit.Stress() {
		tests = []struct {
			n, keep, trials int
			p               float64
		}{{50_000, 4, 2_000_000, 0.01}, {50_000, 31, 2_000_000, 0.001}, {500_000, 4, 2_000_000, 0.001}}
	}
	for _, tc := range tests {
		clock := newFakeClock()
		s, err := CreateSet(filepath.Join(t.TempDir(), "w.bfset"), uint64(tc.n), tc.p,
			&SetOptions{Window: time.Hour, Keep: tc.keep, Now: clock.now})
		require.NoError(t, err)
		for w := range 2 * tc.keep {
			addRange(t, s, fmt.Sprint("w", w), 0, tc.n)
			clock.advance(time.Hour)
		}
		clock.advance(-time.Minute) // inside the last window filled
		require.Equal(t, tc.keep, s.Layers())
		requireFPR(t, measureSetFPR(t, s, tc.trials), tc.p, tc.trials,
			fmt.Sprintf("windowed steady state, W = %d, n = %d per window", tc.keep, tc.n))
		require.NoError(t, s.Close())
	}
}
