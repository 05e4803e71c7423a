package store

import (
	"os"
	"path/filepath"
)

// Files that change behind the server. An open key's filter is the file
// (or set directory) its handle maps; an outside tool may replace it by
// rename (mv, rsync of a new sealed blocklist, a MBF.MIGRATE from another
// node) or remove it, and the handle would go on answering from, and
// adding to, the unlinked copy. So:
//
//   - every Options.FileCheck (the server's Config.FileCheck) the store starts
//     a new check period; the first use of an open key in a period
//     compares the identity (device and inode) of the key's file, or of
//     its set's CONTROL page, with the one it had when opened: one stat
//     per key in use per period. A key found replaced is closed (at the
//     last release, when commands still use the old handle) and opened
//     anew from the new file, so a replaced key is answered from its new
//     file from at most one period after the replacement on;
//   - a cluster reload closes the handles of every key whose slot this
//     node gains or loses (Drop; tools/server's dropMoved) before it
//     serves the new slots, so a range moved away and back meets only
//     the files of the last move.
//
// A set's CONTROL page is never replaced by the library itself (it raises
// the generation in place), so a new CONTROL inode means a new set
// directory, or a set copied over the old one file by file.

// controlFile is the name of a set's CONTROL page (format/FORMAT.md,
// filter sets).
const controlFile = "CONTROL"

// identify returns the identity of stem's file, else of its set's
// CONTROL page, or nil when it has neither.
func (s *Store) identify(stem string) os.FileInfo {
	file, set := s.StemPaths(stem)
	if st, err := os.Stat(file); err == nil {
		return st
	}
	if st, err := os.Stat(filepath.Join(set, controlFile)); err == nil {
		return st
	}
	return nil
}

// sameFile reports whether two identities from identify are the same
// file (or both absent).
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b)
}

// replacedLocked reports whether open entry e's file was replaced behind
// the server, checking it at most once per period; a replaced entry is
// dropped (dropLocked). The caller holds s.mu.
func (s *Store) replacedLocked(e *Entry) bool {
	period := s.period.Load()
	if e.checked == period {
		return false
	}
	e.checked = period
	if sameFile(e.id, s.identify(e.stem)) {
		return false
	}
	s.dropLocked(e)
	return true
}

// dropLocked forgets open entry e, so that the next use opens its key
// anew: closed now when no command uses it, else at its last release.
// The caller holds s.mu.
func (s *Store) dropLocked(e *Entry) {
	delete(s.open, e.stem)
	if e.refs == 0 {
		_ = e.b.Close() // adds are in the mapping already
		return
	}
	e.broken = true
}

// Drop forgets every open entry whose stem pred selects, as dropLocked.
func (s *Store) Drop(pred func(stem string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for stem, e := range s.open {
		if pred(stem) {
			s.dropLocked(e)
		}
	}
}
