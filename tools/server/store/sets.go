package store

import (
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// LibrarySets is the Sets backend on the library's filter sets
// (mmapbloom.CreateSet, OpenSet, RemoveSet): the default of Config.Sets.
type LibrarySets struct {
	// Now is the clock of windowed sets (mmapbloom.OpenOptions.Now).
	// Default nil: time.Now.
	Now func() time.Time
	// BeforeLayer checks each new layer (mmapbloom.OpenOptions.
	// BeforeLayer). Default nil: the server's Limits (Limiter.Sets sets
	// it).
	BeforeLayer func(layers int, size uint64) error
}

// Create makes the set directory dir: scalable with spec.Expansion
// (tightening 0.5, RedisBloom's), or windowed when spec.Window > 0.
func (l LibrarySets) Create(dir string, n uint64, p float64, spec SetSpec) (Bloom, error) {
	st, err := mmapbloom.CreateSet(dir, n, p, &mmapbloom.SetOptions{
		Expansion: spec.Expansion, Window: spec.Window, Keep: spec.Keep, Refresh: spec.Refresh, Now: l.Now,
		BeforeLayer: l.BeforeLayer})
	if err != nil {
		return nil, err
	}
	return Set{st}, nil
}

// Open opens the set directory dir.
func (l LibrarySets) Open(dir string) (Bloom, error) {
	st, err := mmapbloom.OpenSet(dir, &mmapbloom.OpenOptions{Now: l.Now, BeforeLayer: l.BeforeLayer})
	if err != nil {
		return nil, err
	}
	return Set{st}, nil
}

// Remove deletes the set directory dir unless a handle has it open.
func (LibrarySets) Remove(dir string) error { return mmapbloom.RemoveSet(dir) }

// Rename moves the set directory dir to newdir unless a handle has it
// open.
func (LibrarySets) Rename(dir, newdir string) error { return mmapbloom.RenameSet(dir, newdir) }

// Set is a library filter set as a Bloom (LibrarySets makes them).
type Set struct{ *mmapbloom.Set }

// SizeBytes sums the layers' file sizes from the MANIFEST (no pass over
// the bits). Errors: the MANIFEST's (Set.Info).
func (s Set) SizeBytes() (uint64, error) {
	info, err := s.Info()
	if err != nil {
		return 0, err
	}
	var size uint64
	for _, l := range info.Layers {
		size += format.HeaderSize + format.ByteSize(format.V2, l.M)
	}
	return size, nil
}
