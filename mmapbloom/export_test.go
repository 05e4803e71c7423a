package mmapbloom

// Names for the black-box tests of this directory (package
// mmapbloom_test: the end-to-end, multi-process, disk-full and Python
// tests), compiled into the test binary only. Two kinds: fixtures of this
// package's own tests that the black-box tests share, which stay here
// because those tests cannot import a package that imports mmapbloom
// (such as internal/testkit/filtertest); and hooks into internals that
// the public API does not reach, each saying why.

import (
	"testing"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// Layouts is testLayouts: the formats, layouts and hash schemes the
// robustness tests run over.
var Layouts = testLayouts

// LayoutName is layoutName: a subtest's name for an entry of Layouts.
func LayoutName(opts *CreateOptions) string { return layoutName(opts) }

// WithSeed is withSeed: a copy of opts with a fixed seed.
func WithSeed(opts *CreateOptions, seed uint64) *CreateOptions { return withSeed(opts, seed) }

// SequentialCount is sequentialCount: the count a filter must hold after
// keys were added in order by one caller.
func SequentialCount(f *Filter, keys [][]byte) uint64 { return sequentialCount(f, keys) }

// IsV1 is isV1: whether opts creates v1.1 files.
func IsV1(opts *CreateOptions) bool { return isV1(opts) }

// RequireInUse is requireInUse: err is ErrInUse with a message saying so.
func RequireInUse(t *testing.T, err error, what string) {
	t.Helper()
	requireInUse(t, err, what)
}

// HoldExclusive runs fn while f holds its file's exclusive lock, as Clear
// does while it runs: the lock tests hold it in another process to check
// what this one is refused meanwhile. No public call holds the lock
// around a caller's code.
func (f *Filter) HoldExclusive(fn func() error) error { return f.exclusive("hold", fn) }

// OwnBit is ownBit: how many of the keys added have a bit no other key
// of added or maybe sets.
func OwnBit(f *Filter, added, maybe [][]byte) uint64 { return ownBit(f, added, maybe) }

// RequireConcurrentCount is requireConcurrentCount: the count after adds
// add calls of keys made concurrently.
func RequireConcurrentCount(t *testing.T, f *Filter, keys [][]byte, adds, count uint64, msg string) {
	t.Helper()
	requireConcurrentCount(t, f, keys, adds, count, msg)
}

// CountBatch is countBatch, the adds a handle without
// OpenOptions.ExactCount may keep unpublished: the crash and growth tests
// bound the count with it.
const CountBatch = countBatch

// SetCrashPoint sets the hook a change of a set calls at its crash points
// ("layer-created", "manifest-renamed"): a helper process kills itself
// there. No public call stops a change half-way.
func SetCrashPoint(fn func(point string)) { setCrashPoint = fn }

// ControlGeneration returns the generation in the set's CONTROL page,
// which the growth and crash tests compare with the MANIFEST's
// (Info.Generation); the public API reports only the latter.
func (s *Set) ControlGeneration() uint64 { return s.ctl.Generation() }

// ViewLayers returns the generation of the set's current view and the
// filters of its layers, oldest first: the laggard-process test keeps a
// layer its view mapped and asks it after another process dropped it. The
// public API gives no handle on a layer.
func (s *Set) ViewLayers() (gen uint64, layers []*Filter) {
	v := s.view.Load()
	return v.gen, v.layers
}

// Update is this test binary's -update switch (helpers_test.go), which
// TestPythonGolden reads too: a flag is defined once per binary.
var Update = update

// RaceEnabled reports a race-detector build, where the Python interop
// test makes its Go writers add fewer keys (they run 5-10 times slower).
const RaceEnabled = raceEnabled

// DefaultSizing returns the layout, m and k that Create picks for n keys
// at p with default options, or the sizing error, without creating a
// file (Create would reserve the m bits on disk): the Python golden
// sizing table lists them for n up to 10^12.
func DefaultSizing(n uint64, p float64) (format.Layout, uint64, uint32, error) {
	o, sizeFor := withDefaults(nil, n, p)
	m, k, err := o.size(n, sizeFor)
	return o.Layout, m, k, err
}

// LayerOptions is layerOptions: the CreateOptions a set of manifest m
// creates a layer of rate p with, which the Python set test checks
// Python's layers against.
func LayerOptions(m *manifest.Manifest, p float64) *CreateOptions { return layerOptions(m, p) }
