package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// Store maps keys to their open filters. A key's file is opened on its
// first use (Open is O(1)) and closed once no command has used it for
// about the idle time; Close syncs and closes every filter. Its methods
// are safe for concurrent use.
type Store struct {
	dir  string
	sets Sets
	lim  *Limiter

	mu    sync.Mutex
	open  map[string]*Entry // by file-name stem (keyname.Stem, or a folded key's keyname.Fold)
	loads map[string]Load   // BF.LOADCHUNKs in progress, by key (loads.go)
	uses  uint64            // commands that used a filter: Entry.lru's clock
	// shapes holds, per Spec of a fixed file, the header of the first
	// file this store created from it: the next ones are created like it
	// (same m, k and seed), skipping the sizing search (about 2 ms of CPU
	// a file, which dominated adding URLs keyed by host).
	shapes  sync.Map // Spec -> format.Header
	closed  bool
	stop    chan struct{}
	stopped chan struct{}
	// period is the file check period (filecheck.go): an open entry is
	// checked against its file at its first use in each.
	period atomic.Uint64
	// syncOnClose: a filter is synced before it is closed when evicted;
	// evictErr holds the errors of those Syncs until SyncAll reports
	// them (sync.go).
	syncOnClose atomic.Bool
	evictErr    error
	// exp holds the keys' expiries (Expiries; their removal: reap.go).
	exp *Expiries
}

// Entry is an open filter and the commands using it, from Acquire to
// Release.
type Entry struct {
	b      Bloom
	stem   string // its file-name stem, its name in Store.open
	refs   int    // commands running on b; b is not closed while > 0
	used   bool   // used since the idle closer last looked
	broken bool   // b failed (its file changed): closed at the last release
	// ready is closed once b is opened or err set (open.go): the
	// store's lock is not held while a file is opened or created.
	ready chan struct{}
	err   error
	fds   int    // descriptors b holds (open.go)
	lru   uint64 // the store's use counter at b's last use
	// id is the identity of the file (or set CONTROL page) b was opened
	// from; checked, the check period it was last compared in
	// (filecheck.go).
	id      os.FileInfo
	checked uint64
	// health is b's latest sample (health.go), nil before the first.
	health atomic.Pointer[Health]
}

// Bloom returns the entry's filter, valid until Release.
func (e *Entry) Bloom() Bloom { return e.b }

// Spec is how to create a missing key: N keys at false-positive
// probability P, a scaling set growing by Expansion, a windowed set when
// Window > 0, or a fixed file when both are 0.
type Spec struct {
	N uint64
	P float64
	SetSpec
}

// Options are a Store's settings.
type Options struct {
	Dir      string    // the data directory
	Sets     Sets      // the sets backend (Limiter.Sets wraps it)
	Limiter  *Limiter  // the limits every creation is checked against
	Expiries *Expiries // the keys' expiries (LoadExpiries of Dir)
	// Idle is the idle time: a filter no command used for between one
	// and two Idle periods is closed; <= 0: never.
	Idle time.Duration
	// FileCheck is the period of the check for files replaced behind the
	// store (filecheck.go); <= 0: never.
	FileCheck time.Duration
	// ExpireCycle is the period of the removal of expired keys (reap.go);
	// <= 0: only at a key's use.
	ExpireCycle time.Duration
}

// New serves the filters of o.Dir until Close.
func New(o Options) *Store {
	s := &Store{dir: o.Dir, sets: o.Sets, lim: o.Limiter, open: map[string]*Entry{}, loads: map[string]Load{},
		stop: make(chan struct{}), stopped: make(chan struct{}), exp: o.Expiries}
	go s.closeIdle(o.Idle)
	go s.every(o.ExpireCycle, s.expireCycle)
	go s.every(o.FileCheck, func() { s.period.Add(1) }) // the file check (filecheck.go)
	return s
}

// Dir returns the data directory.
func (s *Store) Dir() string { return s.dir }

// Limiter returns the limits the store checks creations against.
func (s *Store) Limiter() *Limiter { return s.lim }

// CreateLike makes the fixed files this store creates from spec from now
// on like h (its m, k, layout, scheme and seed), as it does by itself
// after its first file of spec: tests fix the seeds of filters made by
// commands with it.
func (s *Store) CreateLike(spec Spec, h format.Header) { s.shapes.Store(spec, h) }

// StemPaths returns the fixed-file and set-directory paths of a stem.
func (s *Store) StemPaths(stem string) (file, set string) {
	return filepath.Join(s.dir, stem+keyname.FileSuffix), filepath.Join(s.dir, stem+keyname.SetSuffix)
}

// Acquire returns the open filter named stem (a key's keyname.Stem, or
// a folded bucket's), opening it if needed; with create non-nil a
// missing filter is created from it. The caller must Release the entry.
// Errors: ErrNotFound, ErrNoDescriptors, mmapbloom.ErrClosed after
// Close, mmapbloom.ErrInUse (wrapped) to create a key past its expiry
// not yet removed, a *LimitError, the library's errors.
func (s *Store) Acquire(stem string, create *Spec) (*Entry, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, mmapbloom.ErrClosed
		}
		if s.reapLocked(stem) && s.exp.Expired(stem) { // expired, not removed
			s.mu.Unlock()
			if create == nil {
				return nil, ErrNotFound
			}
			return nil, fmt.Errorf("expired key: %w", mmapbloom.ErrInUse)
		}
		// A pending entry (b nil: another command is opening it) is not
		// checked against its file: it has no identity yet.
		if e := s.open[stem]; e != nil && (e.b == nil || !s.replacedLocked(e)) {
			e.refs++
			s.touchLocked(e)
			s.mu.Unlock()
			if retry, err := e.wait(create); retry || err != nil {
				if retry {
					continue
				}
				return nil, err
			}
			return e, nil
		}
		e := &Entry{stem: stem, refs: 1, ready: make(chan struct{}), checked: s.period.Load()}
		s.open[stem] = e
		s.touchLocked(e)
		s.mu.Unlock()
		b, id, err := s.openOrCreate(stem, create)
		s.opened(e, b, id, err)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

// Release ends a command's use of entry e; broken marks its filter
// unusable (closed once no command uses it).
func (s *Store) Release(e *Entry, broken bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.refs--
	if broken && s.open[e.stem] == e {
		delete(s.open, e.stem)
	}
	e.broken = e.broken || broken
	if !e.broken {
		e.fds = descriptors(e.b) // a set may have grown
	}
	if e.broken && e.refs == 0 { // out of s.open: no new command can take it
		_ = e.b.Close()
	}
}

// Reserve creates key from spec: ErrKeyExists if it has a file already,
// keyname.ErrBadKey, mmapbloom.ErrClosed, a *LimitError, the library's
// errors.
func (s *Store) Reserve(key []byte, spec Spec) error {
	stem, err := keyname.Stem(key)
	if err != nil {
		return err
	}
	s.mu.Lock()
	closed := s.closed
	ok, err := s.existsLocked(stem)
	s.mu.Unlock()
	switch {
	case closed:
		return mmapbloom.ErrClosed
	case err != nil:
		return err
	case ok:
		return ErrKeyExists
	}
	b, err := s.createStem(stem, spec) // without the store's lock
	if errors.Is(err, mmapbloom.ErrExists) {
		return ErrKeyExists
	}
	if err != nil {
		return err
	}
	s.adopt(stem, b)
	return nil
}

// openStem opens stem's fixed file, else its set directory: ErrNotFound
// if neither exists.
func (s *Store) openStem(stem string) (Bloom, error) {
	file, set := s.StemPaths(stem)
	f, err := mmapbloom.Open(file, nil)
	if err == nil {
		return Fixed{Filter: f}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if _, err := os.Stat(set); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return s.sets.Open(set)
}

// createStem makes stem's file (expansion 0) or set directory.
func (s *Store) createStem(stem string, spec Spec) (Bloom, error) {
	file, set := s.StemPaths(stem)
	if spec.Expansion == 0 && spec.Window == 0 {
		var f *mmapbloom.Filter
		var err error
		if like, ok := s.shapes.Load(spec); ok {
			if err := s.lim.Header(like.(format.Header)); err != nil {
				return nil, err
			}
			f, err = mmapbloom.CreateLike(file, like.(format.Header), nil)
		} else if err := s.lim.FileOf(spec.N, spec.P); err != nil {
			return nil, err
		} else if f, err = mmapbloom.Create(file, spec.N, spec.P, nil); err == nil {
			s.shapes.Store(spec, f.Header())
		}
		if err != nil {
			return nil, err
		}
		return s.created(stem, Fixed{Filter: f})
	}
	b, err := s.sets.Create(set, spec.N, spec.P, spec.SetSpec)
	if err != nil {
		return nil, err
	}
	return s.created(stem, b)
}

// created drops the expiry a new key's stem may still have (its old
// file removed by another process): a new key has none, as in Redis.
// On an error it closes b.
func (s *Store) created(stem string, b Bloom) (Bloom, error) {
	if _, err := s.exp.Drop(stem); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// Exists reports whether key has a file or set directory (and is not
// past its expiry).
func (s *Store) Exists(key []byte) (bool, error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.existsLocked(stem)
}

func (s *Store) existsLocked(stem string) (bool, error) {
	if s.reapLocked(stem) {
		return false, nil
	}
	if e := s.open[stem]; e != nil && e.b != nil && !s.replacedLocked(e) {
		return true, nil
	}
	file, set := s.StemPaths(stem)
	for _, p := range []string{file, set} {
		if _, err := os.Lstat(p); err == nil {
			return true, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	return false, nil
}

// missingLocked returns ErrKeyExists if the key of stem has a file or
// a set; the caller holds s.mu.
func (s *Store) missingLocked(stem string) error {
	ok, err := s.existsLocked(stem)
	if err == nil && ok {
		err = ErrKeyExists
	}
	return err
}

// Remove deletes key's file or set: false if it had none. It fails with
// mmapbloom.ErrInUse while a command or another process uses the key.
func (s *Store) Remove(key []byte) (bool, error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeLocked(stem)
}

// closeLocked closes stem's open filter, if any: mmapbloom.ErrInUse
// while a command uses it. kept says its file lives on (a RENAME's
// source): then, while syncs on close are on, it is synced first, as
// closeEvicted does, since SyncAll does not reach a closed filter; a
// failed Sync leaves it open and is returned.
func (s *Store) closeLocked(stem string, kept bool) error {
	e := s.open[stem]
	if e == nil {
		return nil
	}
	if e.refs > 0 {
		return mmapbloom.ErrInUse
	}
	if kept && s.syncOnClose.Load() {
		if err := e.b.Sync(); err != nil {
			return err // still open under its name: nothing lost
		}
	}
	delete(s.open, stem)
	return e.b.Close()
}

// removeLocked is Remove of stem, under s.mu.
func (s *Store) removeLocked(stem string) (bool, error) {
	if err := s.closeLocked(stem, false); err != nil {
		return false, err
	}
	removed, err := s.removeFiles(stem)
	if err != nil {
		return false, err
	}
	if _, err := s.exp.Drop(stem); err != nil {
		return removed, err
	}
	return removed, nil
}

// removeFiles removes stem's fixed file, else its set directory: false
// if it had neither.
func (s *Store) removeFiles(stem string) (bool, error) {
	file, set := s.StemPaths(stem)
	err := mmapbloom.Remove(file)
	if !errors.Is(err, fs.ErrNotExist) {
		return err == nil, err
	}
	if _, err := os.Lstat(set); err != nil {
		return false, nil
	}
	if err := s.sets.Remove(set); err != nil {
		return false, err
	}
	return true, nil
}

// Keys lists the keys that have a file or set directory, sorted, but
// those past their expiry.
func (s *Store) Keys() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: list %s: %w", s.dir, err)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(ents))
	for _, de := range ents {
		key, set, ok := keyname.KeyOf(de.Name())
		if !ok || set != de.IsDir() || seen[key] {
			continue
		}
		if stem, _, _ := keyname.Split(de.Name()); s.exp.Expired(stem) {
			continue
		}
		seen[key] = true
		out = append(out, key)
	}
	sort.Strings(out)
	return out, nil
}

// OpenCount returns the number of filters open.
func (s *Store) OpenCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

// Each calls fn, under the store's lock, with every open filter's entry
// that no failure marked broken: fn must not call the Store.
func (s *Store) Each(fn func(e *Entry)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eachLocked(fn)
}

// eachLocked is Each under s.mu.
func (s *Store) eachLocked(fn func(e *Entry)) {
	for _, e := range s.open {
		if e.b != nil && !e.broken {
			fn(e)
		}
	}
}

// closeIdle closes, every idle period, the filters no command used in
// the period before (so a filter closes between one and two periods
// after its last use), until Close.
func (s *Store) closeIdle(idle time.Duration) {
	defer close(s.stopped)
	s.every(idle, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for k, e := range s.open {
			if e.refs == 0 && !e.used {
				delete(s.open, k)
				s.closeEvicted(e)
			}
			e.used = false
		}
	})
}

// every runs fn every interval until Close; interval <= 0: never.
func (s *Store) every(interval time.Duration, fn func()) {
	if interval <= 0 {
		<-s.stop
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			fn()
		}
	}
}

// Closed reports whether Close has begun.
func (s *Store) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close syncs and closes every open filter and aborts the loads in
// progress; later Acquires fail with mmapbloom.ErrClosed. Commands must
// have ended (no entry held).
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.stop)
	var errs []error
	for k, e := range s.open {
		if e.b != nil {
			errs = append(errs, e.b.Sync(), e.b.Close())
		}
		delete(s.open, k)
	}
	for k := range s.loads {
		s.dropLoadLocked(k)
	}
	s.mu.Unlock()
	<-s.stopped
	return errors.Join(errs...)
}
