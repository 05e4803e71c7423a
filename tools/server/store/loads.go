package store

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// BF.LOADCHUNKs in progress. The store keeps each by its key, so that a
// load's pieces, which may come over new connections (redis-cli sends
// them so), find it, and so that a key has at most one load at a time;
// what a load writes and checks is the server's
// (tools/server/bf_dump.go for a fixed filter's,
// tools/server/bf_setscan_load.go for a set's).

// Load is a BF.LOADCHUNK in progress.
type Load interface {
	// Abort drops the load unless its completion claimed it: its
	// temporary files are removed and its admission returned to the
	// Limiter.
	Abort()
	// Idle reports whether the load received nothing for long enough
	// that a new load may drop it (an abandoned load must not hold its
	// admission forever).
	Idle() bool
}

// StartLoad registers the load start makes for key, which must be
// missing: ErrKeyExists if it has a file or set, keyname.ErrBadKey,
// start's error. Under the store's lock (no command creates key
// meanwhile), it aborts key's load in progress and the idle loads, then
// calls start with the key's fixed-file and set-directory paths.
func (s *Store) StartLoad(key []byte, start func(file, set string) (Load, error)) error {
	stem, err := keyname.Stem(key)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.missingLocked(stem); err != nil {
		return err
	}
	s.dropLoadLocked(string(key))
	s.dropIdleLoadsLocked()
	l, err := start(s.StemPaths(stem))
	if err != nil {
		return err
	}
	s.loads[string(key)] = l
	return nil
}

// Loading returns key's load in progress, nil if it has none.
func (s *Store) Loading(key []byte) Load {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads[string(key)]
}

// Loaded forgets l, key's load, once it completed or failed, unless a
// new load of key replaced it meanwhile.
func (s *Store) Loaded(key []byte, l Load) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loads[string(key)] == l {
		delete(s.loads, string(key))
	}
}

// InstallMissing runs install with the key of stem's fixed-file and
// set-directory paths, under the store's lock, if the key is still
// missing: ErrKeyExists otherwise (a complete load is put in place so).
func (s *Store) InstallMissing(stem string, install func(file, set string) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.missingLocked(stem); err != nil {
		return err
	}
	return install(s.StemPaths(stem))
}

// dropLoadLocked aborts key's load, if any; the caller holds s.mu.
func (s *Store) dropLoadLocked(key string) {
	if l := s.loads[key]; l != nil {
		l.Abort()
		delete(s.loads, key)
	}
}

// dropIdleLoadsLocked aborts the loads that are idle; the caller holds
// s.mu.
func (s *Store) dropIdleLoadsLocked() {
	for k, l := range s.loads {
		if l.Idle() {
			s.dropLoadLocked(k)
		}
	}
}

// Replace closes stem's open filter, then runs install with the key's
// fixed-file and set-directory paths under the store's lock, so that no
// command opens the key meanwhile (a replica puts a pulled copy in
// place so): mmapbloom.ErrInUse while a command uses the key.
func (s *Store) Replace(stem string, install func(file, set string) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.open[stem]; e != nil {
		if e.refs > 0 {
			return mmapbloom.ErrInUse
		}
		delete(s.open, stem)
		if err := e.b.Close(); err != nil {
			return err
		}
	}
	return install(s.StemPaths(stem))
}
