package mmapbloom

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// A handle adds its adds to the header count in groups of countBatch
// (unless opened with ExactCount): its own Count is always exact, another
// handle's lags by less than countBatch until Sync or Close publishes.
func TestCountPublished(t *testing.T) {
	const adds = 1000
	for _, tc := range []struct {
		name    string
		exact   bool
		publish func(*Filter) error
	}{
		{"batched, Close", false, (*Filter).Close},
		{"batched, Sync", false, (*Filter).Sync},
		{"batched, Count", false, func(f *Filter) error { _, err := f.Count(); return err }},
		{"exact", true, func(*Filter) error { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A fixed seed: the counts below are exact only if none of
			// the 1,110 keys is a false positive when added (it would set
			// no bit and not count), which a random seed makes fail with
			// probability 1.8e-5 a subtest, 7e-5 a run (m = 103,936,
			// k = 7: the sum over i < 1,110 of sizing.BlockedFPR at i
			// keys).
			path := newTestFilter(t, 10_000, 0.01, withSeed(nil, 1)).Path()
			w, err := Open(path, &OpenOptions{ExactCount: tc.exact})
			require.NoError(t, err)
			defer w.Close()
			r, err := Open(path, &OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			defer r.Close()

			for i, key := range keysOf(0, adds) {
				require.NoError(t, w.Add(key))
				own, err := w.Count()
				require.NoError(t, err)
				require.Equal(t, uint64(i+1), own, "the adding handle's own count")
			}
			seen, err := r.Count()
			require.NoError(t, err)
			require.Equal(t, uint64(adds), seen, "Count publishes the handle's pending adds")

			require.NoError(t, w.AddBatch(keysOf(1, 10)))
			for _, key := range keysOf(2, 100) {
				require.NoError(t, w.Add(key))
			}
			seen, err = r.Count()
			require.NoError(t, err)
			if tc.exact {
				require.Equal(t, uint64(adds+110), seen)
			} else {
				require.Equal(t, uint64(adds), seen, "110 adds pending, fewer than countBatch")
			}
			require.NoError(t, tc.publish(w))
			seen, err = r.Count()
			require.NoError(t, err)
			require.Equal(t, uint64(adds+110), seen, "after %s", tc.name)
		})
	}
}

// Clear drops the adds a handle has not yet published: they were made
// before the Clear, and the count after it is 0.
func TestClearDropsPendingCount(t *testing.T) {
	f := newTestFilter(t, 10_000, 0.01, nil)
	for _, key := range keysOf(0, 10) {
		require.NoError(t, f.Add(key))
	}
	require.NoError(t, f.Clear())
	require.NoError(t, f.Add([]byte("after")))
	require.NoError(t, f.Sync())
	c, err := f.Count()
	require.NoError(t, err)
	require.Equal(t, uint64(1), c)
}

// TestCountCountsKeys is the first count input: one key added 101
// times to a filter with n = 100 is one key, so the filter is not over
// capacity; through Add, AddBatch, TestAndAdd and TestAndAddBatch alike.
// A v1.1 file counts every Add call, as the v1.1 reference code does.
func TestCountCountsKeys(t *testing.T) {
	key := []byte("https://example.com/")
	same := make([][]byte, 101)
	for i := range same {
		same[i] = key
	}
	for _, tc := range []struct {
		name string
		add  func(*Filter) error
	}{
		{"Add", func(f *Filter) error {
			for range 101 {
				if err := f.Add(key); err != nil {
					return err
				}
			}
			return nil
		}},
		{"AddBatch", func(f *Filter) error { return f.AddBatch(same) }},
		{"TestAndAdd", func(f *Filter) error {
			for range 101 {
				if _, err := f.TestAndAdd(key); err != nil {
					return err
				}
			}
			return nil
		}},
		{"TestAndAddBatch", func(f *Filter) error { return f.TestAndAddBatch(same, make([]bool, len(same))) }},
	} {
		for _, opts := range batchLayouts {
			f := newTestFilter(t, 100, 0.01, opts)
			name := tc.name + "/" + layoutName(opts)
			require.NoError(t, tc.add(f), name)
			c, err := f.Count()
			require.NoError(t, err, name)
			over, err := f.OverCapacity()
			require.NoError(t, err, name)
			if f.countCalls && (tc.name == "Add" || tc.name == "AddBatch") {
				require.Equal(t, uint64(101), c, name)
				require.True(t, over, name)
				continue
			}
			require.Equal(t, uint64(1), c, name)
			require.False(t, over, name)
		}
	}
}

// TestMergeCountEstimates is the merge inputs: the same 60 keys
// merged in twice count about 60, not 120; two overlapping shards whose
// union is 100,000 keys count the union's cardinality estimate, and the
// count is never above the sum of the two.
func TestMergeCountEstimates(t *testing.T) {
	for _, opts := range []*CreateOptions{{Layout: format.LayoutBlocked512}, {Layout: format.LayoutClassic}} {
		t.Run(layoutName(opts), func(t *testing.T) {
			o := withSeed(opts, 11)
			dst := newTestFilter(t, 100, 0.01, o)
			src := newTestFilter(t, 100, 0.01, o)
			require.NoError(t, src.AddBatch(keysOf(0, 60)))
			require.NoError(t, dst.Merge(src))
			require.NoError(t, dst.Merge(src))
			c, err := dst.Count()
			require.NoError(t, err)
			st, err := dst.Stats()
			require.NoError(t, err)
			require.Equal(t, uint64(math.Round(st.EstimatedCardinality)), c)
			require.InDelta(t, 60, c, 3)

			a := newTestFilter(t, 100_000, 0.01, o)
			b := newTestFilter(t, 100_000, 0.01, o)
			require.NoError(t, a.AddBatch(keysOf(0, 60_000)))
			require.NoError(t, b.AddBatch(keysFrom(0, 40_000, 60_000)))
			ca, err := a.Count()
			require.NoError(t, err)
			cb, err := b.Count()
			require.NoError(t, err)
			require.NoError(t, a.Merge(b))
			c, err = a.Count()
			require.NoError(t, err)
			st, err = a.Stats()
			require.NoError(t, err)
			require.Equal(t, uint64(math.Round(st.EstimatedCardinality)), c)
			require.Less(t, c, ca+cb)
			require.InEpsilon(t, 100_000, c, 0.01, "union of 100,000 keys")
			require.Equal(t, c > 100_000, st.OverCapacity)
		})
	}
}

// TestCompatibleItself: Compatible and Merge agree that a filter cannot
// be merged into itself.
func TestCompatibleItself(t *testing.T) {
	f := newTestFilter(t, 100, 0.01, nil)
	require.ErrorIs(t, f.Compatible(f), ErrMismatch)
	require.ErrorIs(t, f.Merge(f), ErrMismatch)
}

// Another handle sees a handle's adds exactly when the 256th (countBatch)
// is made: 0 after 255 adds, 256 after the next. Each add is of a key
// that tests absent first, so it sets a clear bit and counts under either
// rule (every Add, or only an Add that sets a bit).
func TestCountPublishedAt256(t *testing.T) {
	for _, layout := range []format.Layout{format.LayoutBlocked512, format.LayoutClassic} {
		t.Run(layout.String(), func(t *testing.T) {
			path := newTestFilter(t, 100_000, 0.001, &CreateOptions{Layout: layout}).Path()
			w, err := Open(path, nil)
			require.NoError(t, err)
			defer w.Close()
			r, err := Open(path, &OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			defer r.Close()

			keys := keysOf(0, countBatch)
			for i, key := range keys {
				present, err := w.Test(key)
				require.NoError(t, err)
				require.False(t, present, "key %d already tests present: it would set no bit", i)
				require.NoError(t, w.Add(key))
				seen, err := r.Count()
				require.NoError(t, err)
				if i+1 < countBatch {
					require.Zero(t, seen, "after %d adds, fewer than %d", i+1, countBatch)
				} else {
					require.Equal(t, uint64(countBatch), seen, "after the %dth add", countBatch)
				}
			}
		})
	}
}

// A v1.1 file's 32-bit count stops at 2^32-1 instead of wrapping, both
// when adds are added to it and when it is set (storeCount).
func TestCountSaturatesV1(t *testing.T) {
	f := newTestFilter(t, 100_000, 0.001, &CreateOptions{Format: format.V1})
	f.storeCount(1<<32 - 3)
	keys := keysOf(0, 10)
	for _, key := range keys {
		present, err := f.Test(key)
		require.NoError(t, err)
		require.False(t, present, "a new key: it sets a bit and counts under either rule")
	}
	require.NoError(t, f.AddBatch(keys))
	require.Equal(t, uint64(1<<32-1), countOf(t, f), "3 below the top, then 10 adds")

	f.storeCount(1 << 33)
	require.Equal(t, uint64(1<<32-1), countOf(t, f), "a count above 2^32-1 stored")
}
