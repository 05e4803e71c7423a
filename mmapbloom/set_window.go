package mmapbloom

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// Rotation of a windowed set. Window i covers [t0 + i D, t0 + (i+1) D)
// by the handle's clock. The first writing call that finds the newest
// layer's window over starts the current window's layer and drops the
// layers of windows before the Keep last, under LOCK; readers meanwhile
// skip layers whose window is no longer kept (setView.live), so a key
// expires on time even when no one writes. Windows only move forward: a
// clock behind the newest layer's window changes nothing.

// Rotate starts the current window's layer of a windowed set and drops
// (unlinks) the layers of windows no longer kept, unless a handle did it
// already; it reports whether it changed the set. Writing calls rotate by
// themselves, so Rotate is needed only to free the disk space of expired
// layers of a set no one writes (from cron, for example). A scalable set
// never rotates. It waits while another handle changes the set. Errors:
// ErrClosed, ErrReadOnly, those of creating the layer and writing the
// MANIFEST.
func (s *Set) Rotate() (changed bool, err error) {
	err = s.do(func(v *setView) error {
		if !v.m.Windowed() {
			return nil
		}
		changed, err = s.rotate()
		return err
	})
	return changed, err
}

// rotate is Rotate inside do.
func (s *Set) rotate() (bool, error) {
	now := s.now()
	return s.change(true, func(m *manifest.Manifest) ([]string, bool, error) {
		cur := m.WindowAt(now)
		if cur <= m.Layers[len(m.Layers)-1].Window {
			return nil, false, nil
		}
		if err := addLayer(s.dir, m, cur, s.opts.BeforeLayer); err != nil {
			return nil, false, err
		}
		var dropped []string
		kept := m.Layers[:0]
		for _, l := range m.Layers {
			if l.Window <= cur-int64(m.Keep) {
				dropped = append(dropped, l.File)
			} else {
				kept = append(kept, l)
			}
		}
		m.Layers = kept
		return dropped, true, nil
	})
}

// writable returns the view a writing call uses: v, or, when v's newest
// window is over, the view after this handle or another rotated. If
// another handle holds LOCK, the call waits for its rotation. A sealed
// set is refused with ErrSealed, a read-only handle with ErrReadOnly.
func (s *Set) writable(v *setView) (*setView, error) {
	if s.readOnly || v.m.Sealed {
		return nil, s.readOnlyError()
	}
	if !v.m.Windowed() || s.now().Before(v.activeEnd) {
		return v, nil
	}
	if _, err := s.rotate(); err != nil {
		return nil, err
	}
	return s.current()
}
