package store

import (
	"errors"
	"io/fs"
	"os"

	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// The store's side of the keys' expiries (EXPIRE and its family,
// tools/server/generic_expire.go): the table and its EXPIRES file are
// Expiries' (expire.go); here, a key past its expiry is removed at its
// next use (existsLocked, Acquire) and by the background cycle
// (expireCycle).

// reapLocked removes stem's file or set when its expiry has passed,
// reporting whether it expired (then the key answers absent, removed or
// not). A removal refused (another process holds the file) is retried
// at the next use and cycle.
func (s *Store) reapLocked(stem string) bool {
	if !s.exp.Expired(stem) {
		return false
	}
	_, _ = s.removeLocked(stem) // removeLocked drops the expiry once removed
	return true
}

// expireCycle removes the keys whose expiry has passed, and drops the
// expiries of keys whose file is gone (removed by another process), so
// a key created again under that name has none, as in Redis.
func (s *Store) expireCycle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, stem := range s.exp.Due() {
		s.reapLocked(stem)
	}
	for _, stem := range s.exp.Stems() {
		if s.open[stem] != nil {
			continue
		}
		file, set := s.StemPaths(stem)
		if !exists(file) && !exists(set) {
			_, _ = s.exp.Drop(stem)
		}
	}
}

// exists reports whether path exists (an error other than its absence
// counts as existing: nothing is dropped on a doubt).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// SetExpiry gives key the expiry at (Unix ms) when allow accepts it
// given the key's current one (has false: none); set false when the key
// is missing or allow refused. An expiry already past removes the key
// (while another process holds it, the key answers absent until its
// removal succeeds).
func (s *Store) SetExpiry(key []byte, at int64, allow func(cur int64, has bool) bool) (set bool, err error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, err := s.existsLocked(stem); err != nil || !ok {
		return false, err
	}
	if !allow(s.exp.Get(stem)) {
		return false, nil
	}
	if err := s.exp.Set(stem, at); err != nil {
		return false, err
	}
	s.reapLocked(stem)
	return true, nil
}

// Expiry returns key's expiry in Unix ms (has false: none); ok false
// when the key is missing.
func (s *Store) Expiry(key []byte) (at int64, has, ok bool, err error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return 0, false, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, err = s.existsLocked(stem); err != nil || !ok {
		return 0, false, false, err
	}
	at, has = s.exp.Get(stem)
	return at, has, true, nil
}

// Persist removes key's expiry: false when it had none or is missing.
func (s *Store) Persist(key []byte) (bool, error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, err := s.existsLocked(stem); err != nil || !ok {
		return false, err
	}
	return s.exp.Drop(stem)
}
