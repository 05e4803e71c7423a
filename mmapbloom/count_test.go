package mmapbloom

import (
	"testing"

	"github.com/stretchr/testify/require"
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
			path := newTestFilter(t, 10_000, 0.01, nil).Path()
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
