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

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/internal/testkit/layouts"
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

// Layouts is layouts.All as mmapbloom.CreateOptions: the formats, layouts
// and hash schemes the robustness tables run over; nil is Create's
// default.
var Layouts = createOptions(layouts.All)

// createOptions returns the CreateOptions of each layout, nil for the
// zero one (Create's default).
func createOptions(all []layouts.Layout) []*mmapbloom.CreateOptions {
	out := make([]*mmapbloom.CreateOptions, len(all))
	for i, l := range all {
		if l != (layouts.Layout{}) {
			out[i] = &mmapbloom.CreateOptions{Format: l.Format, Layout: l.Layout, Scheme: l.Scheme}
		}
	}
	return out
}

// LayoutName names opts, an entry of Layouts, for subtests
// (layouts.Layout.Name).
func LayoutName(opts *mmapbloom.CreateOptions) string {
	if opts == nil {
		return layouts.Layout{}.Name()
	}
	return layouts.Layout{Format: opts.Format, Layout: opts.Layout, Scheme: opts.Scheme}.Name()
}

// IsV1 reports whether opts creates v1.1 files.
func IsV1(opts *mmapbloom.CreateOptions) bool { return opts != nil && opts.Format == format.V1 }

// WithSeed returns a copy of opts (nil: defaults) with a fixed seed.
func WithSeed(opts *mmapbloom.CreateOptions, seed uint64) *mmapbloom.CreateOptions {
	var o mmapbloom.CreateOptions
	if opts != nil {
		o = *opts
	}
	o.Seed, o.FixedSeed = seed, true
	return &o
}

// CountsCalls reports whether f's count is of Add calls (a v1.1 file),
// not of new keys: the argument of testkit's count references.
func CountsCalls(f *mmapbloom.Filter) bool { return f.Header().Version == format.V1 }

// RequireInUse requires err to be mmapbloom.ErrInUse with a message
// saying so.
func RequireInUse(t testing.TB, err error, what string) {
	t.Helper()
	require.ErrorIs(t, err, mmapbloom.ErrInUse, what)
	require.Contains(t, err.Error(), "in use", what)
}
