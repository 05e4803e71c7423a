package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// BenchmarkAcquireRelease measures a command's use of an open key's
// entry, store.acquire and release (the store lock, and the file check's
// period load and compare), without the filter probe; ns/op is per
// command.
func BenchmarkAcquireRelease(b *testing.B) {
	dir := b.TempDir()
	lim, err := store.NewLimiter(dir, store.Limits{})
	require.NoError(b, err)
	exp, err := store.LoadExpiries(dir, time.Now)
	require.NoError(b, err)
	st := newStore(dir, store.LibrarySets{}, -1, DefaultFileCheck, -1, lim, exp)
	b.Cleanup(func() { _ = st.Close() })
	require.NoError(b, st.reserve([]byte("k"), createSpec{n: 1000, p: 0.01}))
	b.ResetTimer()
	for range b.N {
		e, err := st.acquire("k", nil)
		if err != nil {
			b.Fatal(err)
		}
		st.release(e, false)
	}
}
