package mmapbloom

import (
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// SetInfo describes a filter set as its MANIFEST does.
type SetInfo struct {
	Kind       string        // "scalable" or "windowed"
	Generation uint64        // the MANIFEST's generation (1 at creation, +1 per change)
	N          uint64        // first layer's capacity (scalable); each window's (windowed)
	P          float64       // the set's false-positive target
	Expansion  uint32        // scalable: capacity factor between layers; 0 for windowed
	Tightening float64       // scalable: error ratio r between layers; 0 for windowed
	Window     time.Duration // windowed: window length D; 0 for scalable
	Keep       int           // windowed: windows kept W
	Refresh    bool          // windowed: TestAndAdd hits refresh the key
	Start      time.Time     // windowed: start of window 0 (t0); zero for scalable
	Sealed     bool          // sealed (SealSet): read-only, every layer sealed
	Layers     []LayerInfo   // the live layers, oldest first; the last takes the adds
}

// LayerInfo describes one layer of a set.
type LayerInfo struct {
	File        string    // file name in the set directory
	M           uint64    // bits of the layer's array (its file: a 64-byte header and format.ByteSize(format.V2, M) bytes, M/8 rounded up to 64)
	N           uint64    // capacity the layer was sized for
	P           float64   // false-positive probability at N
	WindowStart time.Time // windowed: the layer's window; zero for scalable
	WindowEnd   time.Time
}

// Info returns the set's description at its current generation.
// Errors: ErrClosed, those of reloading the MANIFEST.
func (s *Set) Info() (info SetInfo, err error) {
	err = s.do(func(v *setView) error {
		info = v.info(len(v.live(s.now)))
		return nil
	})
	return info, err
}

// info describes v with its last live layers.
func (v *setView) info(live int) SetInfo {
	m := v.m
	in := SetInfo{
		Kind: m.Kind, Generation: m.Generation, N: m.N, P: m.P, Expansion: m.Expansion,
		Tightening: m.Tightening, Window: m.Window(), Keep: m.Keep, Refresh: m.Refresh, Sealed: m.Sealed,
	}
	if m.Windowed() {
		in.Start = time.Unix(0, m.T0)
	}
	first := len(m.Layers) - live
	for i, l := range m.Layers[first:] {
		li := LayerInfo{File: l.File, M: v.layers[first+i].M(), N: l.N, P: l.P}
		if m.Windowed() {
			li.WindowStart, li.WindowEnd = m.WindowEnd(l.Window-1), m.WindowEnd(l.Window)
		}
		in.Layers = append(in.Layers, li)
	}
	return in
}

// Count returns the sum of the live layers' counts (see Filter.Count):
// the adds that set at least one clear bit of the layer they went to.
// Errors: ErrClosed, ErrFileChanged.
func (s *Set) Count() (uint64, error) {
	var sum uint64
	err := s.do(func(v *setView) error {
		sum = 0
		for _, f := range v.live(s.now) {
			c, err := f.Count()
			if err != nil {
				return err
			}
			sum += c
		}
		return nil
	})
	return sum, err
}

// OverCapacity reports whether the newest live layer holds more keys than
// it was sized for (Filter.OverCapacity), from its header alone. A
// set that grows adds a layer for the next new key once the newest is
// full, so it reports it only when handles adding at once overshot the
// capacity (set_grow.go), until that next key; a windowed set without an
// expansion does not grow, so a window that receives more keys than n
// reports it until the window ends. Errors: ErrClosed, ErrFileChanged.
func (s *Set) OverCapacity() (bool, error) {
	var over bool
	err := s.do(func(v *setView) error {
		live := v.live(s.now)
		if len(live) == 0 {
			return nil
		}
		var err error
		over, err = live[len(live)-1].OverCapacity()
		return err
	})
	return over, err
}

// Capacity returns the sum of the live layers' capacities n (RedisBloom's
// BF.INFO "Capacity"), from the view of the last call after Close.
func (s *Set) Capacity() uint64 {
	var sum uint64
	for _, l := range s.liveEntries() {
		sum += l.N
	}
	return sum
}

// Layers returns the number of live layers (RedisBloom's "Number of
// filters"), from the view of the last call after Close.
func (s *Set) Layers() int { return len(s.liveEntries()) }

// Window returns the window length D of a windowed set, 0 for a
// scalable set.
func (s *Set) Window() time.Duration { return s.view.Load().m.Window() }

// Expansion returns the capacity factor between a scalable set's layers
// (RedisBloom's "Expansion rate"), or between a windowed set's layers
// of one window; 0 for a windowed set whose windows do not grow.
func (s *Set) Expansion() uint32 { return s.view.Load().m.Expansion }

// liveEntries returns the MANIFEST entries of the live layers of the
// current view, or of the last one when the set is closed or the MANIFEST
// cannot be read.
func (s *Set) liveEntries() []manifest.Layer {
	v := s.view.Load()
	_ = s.do(func(cur *setView) error {
		v = cur
		return nil
	})
	live := len(v.live(s.now))
	return v.m.Layers[len(v.m.Layers)-live:]
}

// Stats returns Filter.Stats of every live layer, oldest first (a pass
// over every layer's bits). Errors: ErrClosed, ErrFileChanged.
func (s *Set) Stats() ([]Stats, error) { return s.layerStats((*Filter).Stats) }

// SampleStats returns Filter.SampleStats(lines, seed) of every live
// layer, oldest first: at most lines lines read per layer. Errors:
// ErrClosed, ErrFileChanged.
func (s *Set) SampleStats(lines int, seed uint64) ([]Stats, error) {
	return s.layerStats(func(f *Filter) (Stats, error) { return f.SampleStats(lines, seed) })
}

// layerStats returns stats of every live layer, oldest first.
func (s *Set) layerStats(stats func(*Filter) (Stats, error)) ([]Stats, error) {
	var all []Stats
	err := s.do(func(v *setView) error {
		all = all[:0]
		for _, f := range v.live(s.now) {
			st, err := stats(f)
			if err != nil {
				return err
			}
			all = append(all, st)
		}
		return nil
	})
	return all, err
}

// Resident returns how many bytes of the set's layer files the page
// cache holds now: Filter.Resident summed over every layer this handle
// maps (a windowed set's expired layers too, until a change of the set
// drops them); the MANIFEST and CONTROL files do not count. Errors:
// ErrClosed, ErrFileChanged, errors.ErrUnsupported off Linux.
func (s *Set) Resident() (uint64, error) {
	var sum uint64
	err := s.do(func(v *setView) error {
		sum = 0
		for _, f := range v.layers {
			n, err := f.Resident()
			if err != nil {
				return err
			}
			sum += n
		}
		return nil
	})
	return sum, err
}
