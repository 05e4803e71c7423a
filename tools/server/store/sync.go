package store

import (
	"errors"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Syncs of the open filters: SyncAll for the server's saves and
// appendfsync's rounds, and the sync on close of the filters the store
// closes by itself (idle, over the descriptor budget), which would
// otherwise leave their adds to the kernel's write-back, out of
// SyncAll's reach.

// SetSyncOnClose turns the sync on close on (appendfsync always or
// everysec) or off (appendfsync no).
func (s *Store) SetSyncOnClose(on bool) { s.syncOnClose.Store(on) }

// SyncAll msyncs every open filter, and reports the failed Syncs of
// the filters closed since the last call (closeEvicted). It holds no
// reference to them: a DEL, RENAME or FLUSHALL meanwhile closes a filter
// as if no Sync ran (Close waits for a Sync in progress; a Sync after it
// answers mmapbloom.ErrClosed, which is no failure: Close published the
// count and the file is gone or renamed).
func (s *Store) SyncAll() error {
	var bs []Bloom
	s.mu.Lock()
	err := s.takeEvictErr()
	s.eachLocked(func(e *Entry) { bs = append(bs, e.b) })
	s.mu.Unlock()
	for _, b := range bs {
		if serr := b.Sync(); serr != nil && !errors.Is(serr, mmapbloom.ErrClosed) {
			err = errors.Join(err, serr)
		}
	}
	return err
}

// closeEvicted closes e, an open filter no command uses, for the store's
// idle and descriptor-budget closers (the caller holds s.mu), syncing it
// first while the sync on close is on. A failed Sync is kept for the
// next SyncAll to report.
func (s *Store) closeEvicted(e *Entry) {
	if s.syncOnClose.Load() {
		if err := e.b.Sync(); err != nil {
			s.evictErr = errors.Join(s.evictErr, err)
		}
	}
	_ = e.b.Close()
}

// takeEvictErr returns and clears the errors of closeEvicted's Syncs
// (the caller holds s.mu).
func (s *Store) takeEvictErr() error {
	err := s.evictErr
	s.evictErr = nil
	return err
}
