package mmapbloom_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// fileSize is the size in bytes of f's file.
func fileSize(f *mmapbloom.Filter) uint64 {
	return format.HeaderSize + f.Header().ByteSize
}

// TestFilterResident: a filter whose every page was just read (Stats)
// is resident whole, and a closed Filter answers ErrClosed; reopened
// after its file left the page cache, it is not resident (Open reads
// its header, nothing of the array).
func TestFilterResident(t *testing.T) {
	f := filtertest.Create(t, 4_000_000, 0.01, nil) // about 5 MiB
	// Zeros written over the array: blocks on disk, not the unwritten
	// extents of Create's reservation, whose reads cost no storage read.
	file, err := os.OpenFile(f.Path(), os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = file.WriteAt(make([]byte, f.Header().ByteSize), format.HeaderSize)
	require.NoError(t, err)
	require.NoError(t, file.Close())
	require.NoError(t, f.Add([]byte("k")))
	_, err = f.Stats() // reads every page
	require.NoError(t, err)
	n, err := f.Resident()
	require.NoError(t, err)
	require.Equal(t, fileSize(f), n)

	path := f.Path()
	require.NoError(t, f.Close())
	_, err = f.Resident()
	require.ErrorIs(t, err, mmapbloom.ErrClosed)

	t.Run("dropped", func(t *testing.T) {
		testkit.SkipUnlessReadsCounted(t, path)
		testkit.DropFromCache(t, path)
		g, err := mmapbloom.Open(path, nil)
		require.NoError(t, err)
		defer g.Close()
		n, err = g.Resident()
		require.NoError(t, err)
		require.Less(t, n, fileSize(g)/4, "the array was not read")
	})
}

// TestSetResident: a set's residency is its layers' sum; a closed Set
// answers ErrClosed.
func TestSetResident(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.bfset")
	s, err := mmapbloom.CreateSet(dir, 1000, 0.01, &mmapbloom.SetOptions{Expansion: 2})
	require.NoError(t, err)
	defer s.Close()
	for i := range 5000 { // past the first layer's capacity: more layers
		_, err := s.TestAndAdd([]byte{byte(i), byte(i >> 8)})
		require.NoError(t, err)
	}
	require.Greater(t, s.Layers(), 1)
	stats, err := s.Stats() // reads every page of every live layer
	require.NoError(t, err)
	var want uint64
	for _, st := range stats {
		want += format.HeaderSize + format.ByteSize(format.V2, st.M)
	}
	n, err := s.Resident()
	require.NoError(t, err)
	require.Equal(t, want, n)

	require.NoError(t, s.Close())
	_, err = s.Resident()
	require.ErrorIs(t, err, mmapbloom.ErrClosed)
}
