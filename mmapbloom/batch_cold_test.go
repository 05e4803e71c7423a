package mmapbloom

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// TestResidencyDecision checks when a filter's batches request their
// pages ahead: the first batch samples, a warm answer holds for
// residencyRecheck keys and a cold one for coldRecheck, the batch that
// spends them samples again, an empty batch charges nothing, and private
// memory never samples.
func TestResidencyDecision(t *testing.T) {
	type batch struct {
		n        int
		resident bool // what a sample finds
		sampled  bool
		cold     bool
	}
	for name, tc := range map[string]struct {
		inMemory bool
		batches  []batch
	}{
		"cold until resident": {batches: []batch{
			{n: 0, resident: false, sampled: false, cold: false}, // nothing to charge: the zero state (warm) holds
			{n: 100, resident: false, sampled: true, cold: true},
			{n: coldRecheck, resident: true, sampled: false, cold: true}, // the sampling batch's own keys are not charged
			{n: 1, resident: true, sampled: true, cold: false},
			{n: residencyRecheck, resident: false, sampled: false, cold: false},
			{n: 5, resident: false, sampled: true, cold: true},
		}},
		"warm from the start": {batches: []batch{
			{n: 3, resident: true, sampled: true, cold: false},
			{n: coldRecheck + 1, resident: false, sampled: false, cold: false},
		}},
		"a batch larger than the budget": {batches: []batch{
			{n: 4 * residencyRecheck, resident: false, sampled: true, cold: true},
			{n: 1, resident: true, sampled: false, cold: true},
		}},
		"private memory": {inMemory: true, batches: []batch{
			{n: 100, resident: false, sampled: false, cold: false},
			{n: 2 * residencyRecheck, resident: false, sampled: false, cold: false},
		}},
	} {
		t.Run(name, func(t *testing.T) {
			r := residency{inMemory: tc.inMemory}
			for i, b := range tc.batches {
				sampled := false
				cold := r.coldFor(b.n, func() bool { sampled = true; return b.resident })
				require.Equal(t, b.sampled, sampled, "batch %d sampled", i)
				require.Equal(t, b.cold, cold, "batch %d cold", i)
			}
		})
	}
}

// forceResidency fixes f's residency decision to cold (pages requested
// ahead) or warm, for the rest of the test.
func forceResidency(f *Filter, cold bool) {
	f.res.budget.Store(math.MaxInt64)
	f.res.cold.Store(cold)
}

// TestColdBatchMatchesWarm checks that the batch calls give the same
// answers and the same file with their pages requested ahead as without,
// for every layout and kernel, across chunk boundaries and the
// look-ahead window (more keys than coldPages).
func TestColdBatchMatchesWarm(t *testing.T) {
	added := keysOf(0, 3000)
	added = append(added, added[:100]...) // repeats inside one batch
	queries := append(keysOf(1, 5000), added...)
	for _, opts := range batchLayouts {
		o := *opts
		o.Seed, o.FixedSeed = 9, true
		t.Run(fmt.Sprintf("%v-%v-%v", o.Format, o.Layout, o.Scheme), func(t *testing.T) {
			kerneltest.ForEach(t, func(t *testing.T) {
				warm := newTestFilter(t, 2000, 0.01, &o)
				cold := newTestFilter(t, 2000, 0.01, &o)
				forceResidency(warm, false)
				forceResidency(cold, true)
				for _, f := range []*Filter{warm, cold} {
					require.NoError(t, f.AddBatch(added[:1000]))
				}
				require.Equal(t, warm.words, cold.words, "AddBatch")
				wantNew, gotNew := make([]bool, len(added)), make([]bool, len(added))
				require.NoError(t, warm.TestAndAddBatch(added, wantNew))
				require.NoError(t, cold.TestAndAddBatch(added, gotNew))
				require.Equal(t, wantNew, gotNew)
				require.Equal(t, warm.words, cold.words, "TestAndAddBatch")
				want, got := make([]bool, len(queries)), make([]bool, len(queries))
				require.NoError(t, warm.TestBatch(queries, want))
				require.NoError(t, cold.TestBatch(queries, got))
				require.Equal(t, want, got)
				require.Contains(t, got, false)
				require.Equal(t, mustCount(t, warm), mustCount(t, cold))
			})
		})
	}
}

// mustCount returns f's count.
func mustCount(t *testing.T, f *Filter) uint64 {
	t.Helper()
	c, err := f.Count()
	require.NoError(t, err)
	return c
}

// TestColdSetBatchMatchesWarm checks a set's batch calls (the fused
// pipeline of blocked layers, and the per-layer one of classic layers)
// with every layer's pages requested ahead against the same set, copied,
// without.
func TestColdSetBatchMatchesWarm(t *testing.T) {
	for _, layout := range []format.Layout{format.LayoutBlocked512, format.LayoutClassic} {
		t.Run(fmt.Sprint(layout), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "a.bfset")
			s, err := CreateSet(src, 500, 0.01, &SetOptions{Layout: layout})
			require.NoError(t, err)
			require.NoError(t, s.AddBatch(keysOf(0, 2000))) // several layers
			require.NoError(t, s.Close())
			dst := filepath.Join(dir, "b.bfset")
			require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
			warm, cold := openSetForTest(t, src, false), openSetForTest(t, dst, true)
			require.Greater(t, len(warm.view.Load().layers), 1)

			queries := append(keysOf(0, 1000), keysOf(1, 3000)...)
			want, got := make([]bool, len(queries)), make([]bool, len(queries))
			require.NoError(t, warm.TestBatch(queries, want))
			require.NoError(t, cold.TestBatch(queries, got))
			require.Equal(t, want, got)
			require.Contains(t, got, false)
			require.Contains(t, got, true)

			added := append(keysOf(2, 300), keysOf(0, 100)...)
			require.NoError(t, warm.TestAndAddBatch(added, want[:len(added)]))
			require.NoError(t, cold.TestAndAddBatch(added, got[:len(added)]))
			require.Equal(t, want[:len(added)], got[:len(added)])
		})
	}
}

// openSetForTest opens the set at path, closed at cleanup, with its
// layers' residency decision fixed (forceResidency).
func openSetForTest(t *testing.T, path string, cold bool) *Set {
	t.Helper()
	s, err := OpenSet(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	for _, f := range s.view.Load().layers {
		forceResidency(f, cold)
	}
	return s
}
