// Package filtertest creates filters for black-box tests of package
// mmapbloom and checks their invariants when a test ends, as bbolt's
// internal/btesting does for its databases. It imports mmapbloom, so the
// library's own (package mmapbloom) tests cannot use it; they share its
// checks through filecheck.Check.
package filtertest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Create creates a filter for n keys at false-positive rate p (opts as
// for mmapbloom.Create) in a new file of t.TempDir() and registers the
// checks of Watch for it.
func Create(t testing.TB, n uint64, p float64, opts *mmapbloom.CreateOptions) *mmapbloom.Filter {
	t.Helper()
	f, err := mmapbloom.Create(filepath.Join(t.TempDir(), "test.bloom"), n, p, opts)
	require.NoError(t, err)
	Watch(t, f)
	return f
}

// Watch registers, for when the test ends, f's Close (which may have
// happened already), the file checks of filecheck.Check against
// the header f has now, and a read-only Open of the file by the library.
func Watch(t testing.TB, f *mmapbloom.Filter) {
	t.Helper()
	path, hdr := f.Path(), f.Header()
	t.Cleanup(func() {
		require.NoError(t, f.Close())
		filecheck.Check(t, path, hdr)
		g, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err, "the file reopens")
		require.NoError(t, g.Close())
	})
}
