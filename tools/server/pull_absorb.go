package server

import (
	"errors"
	"fmt"
	"os"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// What a replica's store does with a pulled copy (pull_fetch.go).

// absorb takes l, a complete pulled copy of the fixed filter named stem
// (a key's keyname.Stem) into s's store: it is
// ORed into key's filter when that has the same shape, linked into place
// when key has none, and replaces key's filter (or set) when that has
// another shape or kind, which means the primary deleted and re-created
// the key (replaced is then true). l's temporary file is removed.
func (s *Server) absorb(stem string, l *load) (replaced bool, err error) {
	defer l.Abort()
	snap, err := mmapbloom.Open(l.f.Name(), &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return false, fmt.Errorf("%w: %w", errBadData, err)
	}
	defer snap.Close()
	e, err := s.store.Acquire(stem, nil)
	if errors.Is(err, ErrNotFound) {
		if err = l.link(); !errors.Is(err, ErrKeyExists) {
			return false, err
		}
		e, err = s.store.Acquire(stem, nil)
	}
	if err != nil {
		return false, err
	}
	f, ok := e.Bloom().(store.Fixed)
	if ok {
		err = f.Union(snap)
	}
	s.store.Release(e, false)
	if ok && !errors.Is(err, mmapbloom.ErrMismatch) {
		return false, err
	}
	return true, s.store.Replace(stem, func(file, set string) error {
		if _, err := os.Lstat(set); err == nil {
			if err := s.cfg.Sets.Remove(set); err != nil {
				return err
			}
		}
		if err := l.f.Sync(); err != nil {
			return err
		}
		return os.Rename(l.f.Name(), file)
	})
}

// withFixed runs fn on key's fixed filter in st when it has one of h's
// shape (m, k, layout, hash scheme and seed), and reports whether it did.
func withFixed(st *store.Store, stem string, h format.Header, fn func(f store.Fixed) error) (bool, error) {
	e, err := st.Acquire(stem, nil)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	f, ok := e.Bloom().(store.Fixed)
	if ok {
		g := f.Header()
		ok = g.M == h.M && g.K == h.K && g.Layout == h.Layout && g.Scheme == h.Scheme && g.Seed == h.Seed
	}
	if ok {
		err = fn(f)
	}
	st.Release(e, errors.Is(err, mmapbloom.ErrFileChanged) || errors.Is(err, mmapbloom.ErrClosed))
	return ok, err
}

// installSet renames the complete set directory tmp into key's place
// in st, replacing a fixed filter of key (the primary re-created the key
// as a set). It fails if key has a set directory already.
func installSet(st *store.Store, stem string, tmp string) error {
	return st.Replace(stem, func(file, set string) error {
		if err := os.Rename(tmp, set); err != nil {
			return err
		}
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	})
}
