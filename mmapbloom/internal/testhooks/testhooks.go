// Package testhooks is how the library's process-level tests, in
// packages of their own under mmapbloom/tests/, reach what the public
// API does not: the crash points of a set's change, and a few internals
// that package mmapbloom installs here when it is initialised (the
// values are typed any where they are mmapbloom's own types, which this
// package, imported by mmapbloom, cannot name; each test package wraps
// the ones it uses with their types).
//
// # Caveats
//
// The library's only call into this package at run time is Crash, one
// atomic load of a nil pointer unless a test set a hook. Besides, package
// mmapbloom's init stores a few closures and constants here, which only
// tests call or read.
package testhooks

import (
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// crash is the hook SetCrash installed, nil when none was.
var crash atomic.Pointer[func(point string)]

// Crash calls the hook SetCrash installed with point, the name of a point
// of a set's change where a crash leaves work for the next handle:
// "layer-created" (a layer file linked, the MANIFEST not yet renamed) and
// "manifest-renamed" (the MANIFEST renamed, the generation not yet
// raised). Without a hook it does nothing.
func Crash(point string) {
	if fn := crash.Load(); fn != nil {
		(*fn)(point)
	}
}

// SetCrash installs fn as the hook Crash calls (nil removes it): a helper
// process kills itself there. No public call stops a change half-way.
func SetCrash(fn func(point string)) {
	if fn == nil {
		crash.Store(nil)
		return
	}
	crash.Store(&fn)
}

// What package mmapbloom installs at init (testhooks.go there), for tests
// to read; nil or zero in a program that does not import mmapbloom.
var (
	// ViewLayers returns the generation of a *mmapbloom.Set's current
	// view and the *mmapbloom.Filter of each of its layers, oldest first:
	// the laggard-process test keeps a layer its view mapped and asks it
	// after another process dropped it. The public API gives no handle on
	// a layer.
	ViewLayers func(set any) (gen uint64, layers []any)

	// ControlGeneration returns the generation in the CONTROL page of a
	// *mmapbloom.Set, which the growth and crash tests compare with the
	// MANIFEST's (Info.Generation); the public API reports only the
	// latter.
	ControlGeneration func(set any) uint64

	// HoldExclusive runs fn while a *mmapbloom.Filter holds its file's
	// exclusive lock, as Clear does while it runs: the lock tests hold it
	// in another process to check what this one is refused meanwhile. No
	// public call holds the lock around a caller's code.
	HoldExclusive func(filter any, fn func() error) error

	// LayerOptions returns the *mmapbloom.CreateOptions a set of
	// manifest m creates a layer of rate p with, which the Python set
	// test checks Python's layers against.
	LayerOptions func(m *manifest.Manifest, p float64) any

	// DefaultSizing returns the layout, m (bits) and k that
	// mmapbloom.Create picks for n keys at p with default options, or the
	// sizing error, without creating a file (Create would reserve the m
	// bits on disk): the Python golden sizing table lists them for n up
	// to 10^12.
	DefaultSizing func(n uint64, p float64) (format.Layout, uint64, uint32, error)

	// CountBatch is the number of adds a handle without
	// OpenOptions.ExactCount may keep unpublished: the crash and growth
	// tests bound the count with it.
	CountBatch uint64

	// RaceEnabled reports a race-detector build, where the Python interop
	// test makes its Go writers add fewer keys (they run 5-10 times
	// slower).
	RaceEnabled bool
)
