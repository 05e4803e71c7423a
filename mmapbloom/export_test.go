package mmapbloom

// Names for the black-box tests of this directory (package
// mmapbloom_test: the end-to-end, multi-process, disk-full and Python
// tests), compiled into the test binary only. Two kinds: fixtures of this
// package's own tests that the black-box tests share, which stay here
// because those tests cannot import a package that imports mmapbloom
// (such as internal/testkit/filtertest); and hooks into internals that
// the public API does not reach, each saying why.

import "testing"

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
func RequireInUse(t *testing.T, err error, what string) { requireInUse(t, err, what) }

// HoldExclusive runs fn while f holds its file's exclusive lock, as Clear
// does while it runs: the lock tests hold it in another process to check
// what this one is refused meanwhile. No public call holds the lock
// around a caller's code.
func (f *Filter) HoldExclusive(fn func() error) error { return f.exclusive("hold", fn) }
