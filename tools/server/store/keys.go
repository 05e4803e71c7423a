package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// The store's side of RENAME and MEMORY USAGE (tools/server/generic_keys.go).

// Rename gives src's file or set dst's name, replacing what dst had
// unless nx (then done is false when dst exists). src is first moved to
// a hidden name (refused, with nothing changed, while any process has it
// open), then dst removed (refused while it is open: src goes back),
// then src takes dst's name, so a refusal loses neither key. Errors:
// ErrNotFound when src has no file, mmapbloom.ErrInUse (wrapped with the
// key refused, a *KeyError) while a command or another process uses
// either key, mmapbloom.ErrClosed after Close.
func (s *Store) Rename(src, dst []byte, nx bool) (done bool, err error) {
	from, err := keyname.Stem(src)
	if err != nil {
		return false, err
	}
	to, err := keyname.Stem(dst)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, mmapbloom.ErrClosed
	}
	if ok, err := s.existsLocked(from); err != nil || !ok {
		return false, errors.Join(err, ErrNotFound)
	}
	taken, err := s.existsLocked(to)
	if err != nil || (taken && nx) {
		return false, err
	}
	if err := s.closeLocked(from, true); err != nil {
		return false, &KeyError{Key: src, Err: err}
	}
	if err := s.closeLocked(to, false); err != nil {
		return false, &KeyError{Key: dst, Err: err}
	}
	return true, s.moveLocked(from, to, src, dst)
}

// moveLocked moves stem from's file or set to stem to through a hidden
// name, removing what to had (Rename).
func (s *Store) moveLocked(from, to string, src, dst []byte) error {
	file, set := s.StemPaths(from)
	tmp := filepath.Join(s.dir, ".rename-"+to)
	newFile, newSet := s.StemPaths(to)
	move, back, dest := mmapbloom.Rename, os.Rename, newFile
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		file, move, dest = set, s.sets.Rename, newSet
	}
	if err := move(file, tmp); err != nil {
		return &KeyError{Key: src, Err: err}
	}
	if _, err := s.removeLocked(to); err != nil {
		return errors.Join(&KeyError{Key: dst, Err: err}, back(tmp, file))
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	return s.exp.Move(from, to)
}

// KeyError is an error met on one key of a command of several: its
// text is Err's.
type KeyError struct {
	Key []byte // the key refused
	Err error
}

// Error returns Err's text.
func (e *KeyError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *KeyError) Unwrap() error { return e.Err }

// DiskBytes returns the bytes key's file holds, or the sum of the files
// of its set directory; ok false when it has neither. It opens nothing.
func (s *Store) DiskBytes(key []byte) (n int64, ok bool, err error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return 0, false, err
	}
	if s.exp.Expired(stem) {
		return 0, false, nil
	}
	file, set := s.StemPaths(stem)
	if st, err := os.Stat(file); err == nil {
		return st.Size(), true, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, false, err
	}
	err = filepath.WalkDir(set, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	return n, err == nil, err
}
