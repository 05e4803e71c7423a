package mmapbloom

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// update is the one switch that rewrites the golden files the Go code
// writes (../testdata/py, ../testdata/set-sizing.md):
// go test ./mmapbloom -run 'TestPythonGolden|TestSetSizingTable' -update.
// The files of testdata/ computed by Python scripts are rewritten by those
// scripts.
var update = flag.Bool("update", false, "rewrite the golden files the Go code writes (../testdata/py, ../testdata/set-sizing.md)")

// newTestFilter creates a filter in t.TempDir and, when the test ends,
// checks its invariants: the file reopens and validates, its immutable
// header is unchanged, and no bit beyond m is set.
func newTestFilter(t *testing.T, n uint64, p float64, opts *CreateOptions) *Filter {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.bloom")
	f, err := Create(path, n, p, opts)
	require.NoError(t, err)
	watch(t, f)
	return f
}

// watch registers the invariant checks of newTestFilter for f.
func watch(t *testing.T, f *Filter) {
	t.Helper()
	path, hdr := f.Path(), f.Header()
	t.Cleanup(func() {
		require.NoError(t, f.Close())
		checkInvariants(t, path, hdr)
	})
}

func checkInvariants(t *testing.T, path string, want format.Header) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	got, err := format.Decode(raw)
	require.NoError(t, err)
	got.Count, want.Count = 0, 0
	require.Equal(t, want, got, "immutable header fields changed")
	require.Len(t, raw, int(format.HeaderSize+got.ByteSize))
	for bit := got.M; bit < got.ByteSize*8; bit++ {
		require.Zero(t, raw[format.HeaderSize+bit/8]&(1<<(bit%8)), "padding bit %d set", bit)
	}
}
