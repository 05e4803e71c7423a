package mmapbloom

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// The single-key calls of a Set. A scalable set and a windowed set
// without Refresh test the older live layers first, newest first, and add
// a key to the newest layer only when none holds it (RedisBloom's
// SBChain_Add), so a key is counted in one layer. A windowed set's Add
// always adds to the current window (the key was seen now), and so does
// its TestAndAdd with Refresh, unless the current window holds it already
// (a window that grew tests its own layers as a scalable set does, so
// adding the same keys again in one window neither counts nor grows it).
// A key absent from the set costs one probe
// (one cache line for a blocked layer) per live layer.

// Add inserts key (see the note above for which layer takes it). Errors:
// ErrClosed, ErrReadOnly, ErrSealed, ErrFileChanged, and those of adding
// a layer (Create's, the MANIFEST's write).
func (s *Set) Add(key []byte) error {
	_, err := s.insert(key, true)
	return err
}

// AddString is Add for a string key, without copying it.
func (s *Set) AddString(key string) error { return s.Add(mapping.Bytes(key)) }

// Test reports whether key may be in the set: whether any live layer may
// hold it, tested newest first. false means definitely absent; a key
// never added tests present with probability below p (see SetOptions).
// Errors: ErrClosed, ErrFileChanged.
func (s *Set) Test(key []byte) (present bool, err error) {
	err = s.do(func(v *setView) error {
		present, err = anyHas(v.live(s.now), key)
		return err
	})
	return present && err == nil, err
}

// TestString is Test for a string key, without copying it.
func (s *Set) TestString(key string) (bool, error) { return s.Test(mapping.Bytes(key)) }

// TestAndAdd adds key and reports whether it may have been present
// before: false exactly when no live layer held it and adding it to the
// newest layer claimed it (claim.go; then the newest layer's count grows by
// one). Racing callers are told as by Filter.TestAndAdd. Errors as for
// Add.
func (s *Set) TestAndAdd(key []byte) (present bool, err error) {
	return s.insert(key, false)
}

// TestAndAddString is TestAndAdd for a string key, without copying it.
func (s *Set) TestAndAddString(key string) (bool, error) { return s.TestAndAdd(mapping.Bytes(key)) }

// insert is Add (add true) and TestAndAdd.
func (s *Set) insert(key []byte, add bool) (present bool, err error) {
	err = s.do(func(v *setView) error {
		v, err := s.writable(v)
		if err != nil {
			return err
		}
		older, active := v.split(s.now)
		always := v.addsAlways(add)
		if present, err = anyHas(v.held(older, always), key); present || err != nil {
			return err
		}
		if v.full() {
			if present, err = active.Test(key); present || err != nil {
				return err
			}
			if v, err = s.grow(v); err != nil {
				return err
			}
			older, active = v.split(s.now)
		}
		if present, err = active.TestAndAdd(key); err != nil || present {
			return err
		}
		if err := s.noteAdds(v, 1); err != nil {
			return err
		}
		if always && !add {
			present, err = anyHas(older, key)
		}
		return err
	})
	return present, err
}

// addsAlways reports whether a key goes to the newest layer even when an
// older window holds it: a windowed set's Add, and its TestAndAdd with
// Refresh. A key the current window holds already (in an older layer of
// a window that grew) is not added again.
func (v *setView) addsAlways(add bool) bool {
	return v.m.Windowed() && (add || v.m.Refresh)
}

// held returns the layers older than the newest in which an insert looks
// a key up before adding it, a key one of them holds being present and
// not added again: every older live layer (older, as split returned it),
// or for a call that adds keys always (addsAlways) only the current
// window's older layers, which a window that grew (an expansion) has. A
// suffix of older.
func (v *setView) held(older []*Filter, always bool) []*Filter {
	if !always {
		return older
	}
	k, ls := 0, v.m.Layers
	for k < len(older) && ls[len(ls)-2-k].Window == ls[len(ls)-1].Window {
		k++
	}
	return older[len(older)-k:]
}

// anyHas tests key in layers, newest first, and stops at the first hit.
func anyHas(layers []*Filter, key []byte) (bool, error) {
	for i := len(layers) - 1; i >= 0; i-- {
		if ok, err := layers[i].Test(key); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}
