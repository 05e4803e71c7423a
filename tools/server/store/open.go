package store

import (
	"errors"
	"fmt"
	"os"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Opening and creating keys without the store's lock, and the bound on
// the descriptors open filters hold.
//
// The store's lock is held only to find or register a key's entry: the
// first command on a key that is not open registers a pending entry and
// opens (or creates) the file without the lock, so that a slow creation
// (a scaling set: a few files and fsyncs, about 24 ms) stalls only the
// commands on that key, which wait for the entry to be ready. Once it is
// open, the entries least recently used, and used by no command, are
// closed until the open filters hold at most Limits.FilterFiles
// descriptors (a fixed filter holds one, a set one per layer and its
// CONTROL page).

// wait waits until e, registered by another command, is ready. It
// reports retry when that command found no file and this one may create
// it (create not nil), and the opening's error otherwise.
func (e *Entry) wait(create *Spec) (retry bool, err error) {
	if e.ready != nil {
		<-e.ready
	}
	if e.err == nil {
		return false, nil
	}
	return create != nil && errors.Is(e.err, ErrNotFound), e.err
}

// openOrCreate opens stem's filter, creating it from create when it has
// none; without descriptors left it closes unused filters and tries once
// more, then fails with ErrNoDescriptors. id is the identity of the file
// (or set CONTROL page) opened, for the file check (filecheck.go).
func (s *Store) openOrCreate(stem string, create *Spec) (b Bloom, id os.FileInfo, err error) {
	b, id, err = s.openCreate(stem, create)
	if NoDescriptors(err) {
		s.mu.Lock()
		s.evictLocked(true)
		s.mu.Unlock()
		b, id, err = s.openCreate(stem, create)
	}
	if NoDescriptors(err) {
		return nil, nil, fmt.Errorf("%w (%v)", ErrNoDescriptors, err)
	}
	return b, id, err
}

func (s *Store) openCreate(stem string, create *Spec) (Bloom, os.FileInfo, error) {
	id := s.identify(stem) // before the open: a replacement meanwhile is seen at the next check
	b, err := s.openStem(stem)
	if errors.Is(err, ErrNotFound) && create != nil {
		b, err = s.createStem(stem, *create)
		if errors.Is(err, mmapbloom.ErrExists) { // another process won
			b, err = s.openStem(stem)
		}
		id = s.identify(stem)
	}
	return b, id, err
}

// opened makes the pending entry e ready with the filter b, or removes
// it with the opening's error, and wakes the commands waiting for it.
func (s *Store) opened(e *Entry, b Bloom, id os.FileInfo, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || s.closed {
		if err == nil {
			err = mmapbloom.ErrClosed
			_ = b.Close()
		}
		e.err = err
		if s.open[e.stem] == e {
			delete(s.open, e.stem)
		}
	} else {
		e.b, e.fds, e.id = b, descriptors(b), id
		s.evictLocked(false)
	}
	close(e.ready)
}

// adopt registers the filter b that BF.RESERVE created for stem, unless
// a command opened the key meanwhile (b is then closed).
func (s *Store) adopt(stem string, b Bloom) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[stem] != nil || s.closed {
		_ = b.Close()
		return
	}
	e := &Entry{b: b, stem: stem, fds: descriptors(b), id: s.identify(stem), checked: s.period.Load()}
	s.open[stem] = e
	s.touchLocked(e)
	s.evictLocked(false)
}

// descriptors returns the descriptors an open filter holds.
func descriptors(b Bloom) int {
	if _, ok := b.(Fixed); ok {
		return 1
	}
	return b.Layers() + 1
}

// touchLocked marks e used now.
func (s *Store) touchLocked(e *Entry) {
	e.used = true
	s.uses++
	e.lru = s.uses
}

// evictLocked closes the least recently used filters no command uses
// until the open ones hold at most FilterFiles descriptors (counted when
// each was opened), or, with all (descriptors ran out), every one no
// command uses.
func (s *Store) evictLocked(all bool) {
	budget, total := s.lim.FilterFiles, 0
	if all {
		budget = 0
	}
	for _, e := range s.open {
		total += e.fds
	}
	for total > budget {
		var lru *Entry
		for _, e := range s.open {
			if e.refs == 0 && e.b != nil && (lru == nil || e.lru < lru.lru) {
				lru = e
			}
		}
		if lru == nil {
			return
		}
		delete(s.open, lru.stem)
		s.closeEvicted(lru)
		total -= lru.fds
	}
}
