package mmapbloom

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
)

// update rewrites the golden files this package's tests write
// (../testdata/set-sizing.md):
// go test ./mmapbloom -run TestSetSizingTable -update. Those of
// ../testdata/py are rewritten by ./tests/python's TestPythonGolden with
// its own -update; the files of testdata/ computed by Python scripts by
// those scripts.
var update = flag.Bool("update", false, "rewrite the golden files this package's tests write (../testdata/set-sizing.md)")

// newTestFilter creates a filter in t.TempDir and, when the test ends,
// checks its invariants (filecheck.Check: the file validates,
// its immutable header is unchanged, no bit beyond m is set). Black-box
// tests use internal/testkit/filtertest, which also reopens the file.
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
		filecheck.Check(t, path, hdr)
	})
}
