package mmapbloom

import (
	"errors"
	"io/fs"
	"runtime/debug"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// reloadTries bounds the re-reads of a MANIFEST whose layer files
// vanished under the reader (another process dropped them meanwhile).
const reloadTries = 8

// do runs op on the current view under the shared lock. A layer closed
// under op by this handle's own reload (another goroutine moved the view
// on) makes op run again on the new view. CONTROL truncated under the
// mapping gives ErrFileChanged (control.guard).
func (s *Set) do(op func(v *setView) error) (err error) {
	s.rw.RLock()
	defer s.rw.RUnlock()
	defer s.ctl.RecoverFault(debug.SetPanicOnFault(true), &err)
	for try := 0; ; try++ {
		v, err := s.current()
		if err != nil {
			return err
		}
		err = op(v)
		if !errors.Is(err, ErrClosed) || try == reloadTries || s.view.Load() == v {
			return err
		}
	}
}

// current returns the view of the current generation, reloading the
// MANIFEST when CONTROL's generation moved. The caller holds rw.
func (s *Set) current() (*setView, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	v := s.view.Load()
	if s.ctl.Generation() == v.gen {
		return v, nil
	}
	return s.reload()
}

// reload reads the MANIFEST and publishes a view of it, reusing the open
// layers it still lists and closing those it dropped.
func (s *Set) reload() (*setView, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.view.Load()
	gen := s.ctl.Generation()
	if old != nil && old.gen == gen {
		return old, nil
	}
	var err error
	for range reloadTries {
		var v *setView
		if v, err = s.build(gen, old); err == nil {
			s.view.Store(v)
			s.closeDropped(old, v)
			return v, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		gen = s.ctl.Generation()
	}
	return nil, err
}

// build reads the MANIFEST and opens its layers, taking those old has
// open. gen is the CONTROL generation loaded before the read: the
// MANIFEST is at least as new, since a change renames it before raising
// the generation.
func (s *Set) build(gen uint64, old *setView) (*setView, error) {
	m, err := manifest.Read(s.dir)
	if err != nil {
		return nil, err
	}
	v := &setView{gen: gen, m: m, layers: make([]*Filter, len(m.Layers))}
	for i, l := range m.Layers {
		if v.layers[i] = old.layer(l.File); v.layers[i] != nil {
			continue
		}
		f, err := openLayer(s.dir, m, l, &s.opts)
		if err != nil {
			v.closeNew(old)
			return nil, err
		}
		v.layers[i] = f
	}
	if m.Windowed() {
		v.activeEnd = m.WindowEnd(m.Layers[len(m.Layers)-1].Window)
	}
	v.isFull.Store(m.Grows() && v.active().sharedCount() >= v.capacity())
	return v, nil
}

// layer returns v's open layer of file name, or nil.
func (v *setView) layer(name string) *Filter {
	if v == nil {
		return nil
	}
	for i, l := range v.m.Layers {
		if l.File == name {
			return v.layers[i]
		}
	}
	return nil
}

// closeNew closes the layers v opened that old does not hold (a build
// that failed part-way).
func (v *setView) closeNew(old *setView) {
	for i, f := range v.layers {
		if f != nil && old.layer(v.m.Layers[i].File) == nil {
			_ = f.Close()
		}
	}
}

// closeDropped closes the layers of old that v no longer lists. A call
// still running on one of them returns ErrClosed and is run again on v
// (see do).
func (s *Set) closeDropped(old, v *setView) {
	if old == nil {
		return
	}
	for i, f := range old.layers {
		if v.layer(old.m.Layers[i].File) == nil {
			_ = f.Close()
		}
	}
}
