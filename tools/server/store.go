package server

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
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// filterStore maps keys to their open filters. A key's file is opened on its
// first use (Open is O(1)) and closed once no command has used it for
// about the idle time; Close syncs and closes every filter.
type filterStore struct {
	dir  string
	sets store.Sets
	lim  *store.Limiter

	mu    sync.Mutex
	open  map[string]*entry // by file-name stem (keyname.Stem, or a folded key's keyname.Fold)
	loads map[string]*load  // BF.LOADCHUNK in progress
	// setLoads are the BF.LOADCHUNKs of sets in progress (bf_setscan_load.go).
	setLoads map[string]*setLoad
	uses     uint64 // commands that used a filter: entry.lru's clock
	// shapes holds, per createSpec of a fixed file, the header of the
	// first file this store created from it: the next ones are created
	// like it (same m, k and seed), skipping the sizing search (about
	// 2 ms of CPU a file, which dominated adding URLs keyed by host).
	shapes  sync.Map // createSpec -> format.Header
	closed  bool
	stop    chan struct{}
	stopped chan struct{}
	// period is the file check period (store_filecheck.go): an open entry is
	// checked against its file at its first use in each.
	period atomic.Uint64
	// syncOnClose: appendfsync is not no, closeEvicted syncs a filter
	// before closing it; evictErr holds the errors of those Syncs until
	// syncAll reports them (save_appendfsync.go).
	syncOnClose atomic.Bool
	evictErr    error
	// exp holds the keys' expiries (store.Expiries; their removal:
	// store_expire.go).
	exp *store.Expiries
}

// entry is an open filter and the commands using it.
type entry struct {
	b      store.Bloom
	stem   string // its file-name stem, its name in store.open
	refs   int    // commands running on b; b is not closed while > 0
	used   bool   // used since the idle closer last looked
	broken bool   // b failed (its file changed): closed at the last release
	// ready is closed once b is opened or err set (store_open.go): the
	// store's lock is not held while a file is opened or created.
	ready chan struct{}
	err   error
	fds   int    // descriptors b holds (store_open.go)
	lru   uint64 // the store's use counter at b's last use
	// id is the identity of the file (or set CONTROL page) b was opened
	// from; checked, the check period it was last compared in
	// (store_filecheck.go).
	id      os.FileInfo
	checked uint64
	// health is b's latest sample (bf_health.go), nil before the first.
	health atomic.Pointer[keyHealth]
}

// createSpec is how to create a missing key: n keys at probability p,
// a scaling set growing by expansion, a windowed set when window > 0, or
// a fixed file when both are 0.
type createSpec struct {
	n         uint64
	p         float64
	expansion uint32
	window    time.Duration
	keep      int
	refresh   bool
}

// newStore serves dir's filters; exp holds their expiries, removed by
// the expiry cycle every cycle (<= 0: only at a key's use).
func newStore(dir string, sets store.Sets, idle, check, cycle time.Duration, lim *store.Limiter, exp *store.Expiries) *filterStore {
	s := &filterStore{dir: dir, sets: sets, lim: lim, open: map[string]*entry{}, loads: map[string]*load{}, setLoads: map[string]*setLoad{},
		stop: make(chan struct{}), stopped: make(chan struct{}), exp: exp}
	go s.closeIdle(idle)
	go s.every(cycle, s.expireCycle)
	go s.every(check, func() { s.period.Add(1) }) // the file check (store_filecheck.go)
	return s
}

// paths returns the fixed-file and set-directory paths of key.
func (s *filterStore) paths(key []byte) (file, set string, err error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return "", "", err
	}
	file, set = s.stemPaths(stem)
	return file, set, nil
}

// stemPaths returns the fixed-file and set-directory paths of a stem.
func (s *filterStore) stemPaths(stem string) (file, set string) {
	return filepath.Join(s.dir, stem+keyname.FileSuffix), filepath.Join(s.dir, stem+keyname.SetSuffix)
}

// acquire returns the open filter named stem (a key's keyname.Stem, or a folded
// bucket's), opening it if needed; with create non-nil a missing filter
// is created from it. The caller must release the entry. Errors:
// ErrNotFound, the library's errors.
func (s *filterStore) acquire(stem string, create *createSpec) (*entry, error) {
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
		e := &entry{stem: stem, refs: 1, ready: make(chan struct{}), checked: s.period.Load()}
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

// release ends a command's use of entry e; broken marks its filter
// unusable (closed once no command uses it).
func (s *filterStore) release(e *entry, broken bool) {
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

// reserve creates key from spec: ErrKeyExists if it has a file already.
func (s *filterStore) reserve(key []byte, spec createSpec) error {
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
func (s *filterStore) openStem(stem string) (store.Bloom, error) {
	file, set := s.stemPaths(stem)
	f, err := mmapbloom.Open(file, nil)
	if err == nil {
		return store.Fixed{Filter: f}, nil
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
func (s *filterStore) createStem(stem string, spec createSpec) (store.Bloom, error) {
	file, set := s.stemPaths(stem)
	if spec.expansion == 0 && spec.window == 0 {
		var f *mmapbloom.Filter
		var err error
		if like, ok := s.shapes.Load(spec); ok {
			if err := s.lim.Header(like.(format.Header)); err != nil {
				return nil, err
			}
			f, err = mmapbloom.CreateLike(file, like.(format.Header), nil)
		} else if err := s.lim.FileOf(spec.n, spec.p); err != nil {
			return nil, err
		} else if f, err = mmapbloom.Create(file, spec.n, spec.p, nil); err == nil {
			s.shapes.Store(spec, f.Header())
		}
		if err != nil {
			return nil, err
		}
		return s.created(stem, store.Fixed{Filter: f})
	}
	b, err := s.sets.Create(set, spec.n, spec.p, store.SetSpec{Expansion: spec.expansion, Window: spec.window, Keep: spec.keep, Refresh: spec.refresh})
	if err != nil {
		return nil, err
	}
	return s.created(stem, b)
}

// created drops the expiry a new key's stem may still have (its old
// file removed by another process): a new key has none, as in Redis.
// On an error it closes b.
func (s *filterStore) created(stem string, b store.Bloom) (store.Bloom, error) {
	if _, err := s.exp.Drop(stem); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// exists reports whether key has a file or set directory.
func (s *filterStore) exists(key []byte) (bool, error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.existsLocked(stem)
}

func (s *filterStore) existsLocked(stem string) (bool, error) {
	if s.reapLocked(stem) {
		return false, nil
	}
	if e := s.open[stem]; e != nil && e.b != nil && !s.replacedLocked(e) {
		return true, nil
	}
	file, set := s.stemPaths(stem)
	for _, p := range []string{file, set} {
		if _, err := os.Lstat(p); err == nil {
			return true, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	return false, nil
}

// remove deletes key's file or set: false if it had none. It fails with
// mmapbloom.ErrInUse while a command or another process uses the key.
func (s *filterStore) remove(key []byte) (bool, error) {
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
// source): then, while appendfsync is not no, it is synced first, as
// closeEvicted does, since syncAll does not reach a closed filter; a
// failed Sync leaves it open and is returned.
func (s *filterStore) closeLocked(stem string, kept bool) error {
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

// removeLocked is remove of stem, under s.mu.
func (s *filterStore) removeLocked(stem string) (bool, error) {
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
func (s *filterStore) removeFiles(stem string) (bool, error) {
	file, set := s.stemPaths(stem)
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

// keys lists the keys that have a file or set directory, sorted, but
// those past their expiry.
func (s *filterStore) keys() ([]string, error) {
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

// openCount returns the number of filters open.
func (s *filterStore) openCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

// closeIdle closes, every idle period, the filters no command used in
// the period before (so a filter closes between one and two periods
// after its last use), until Close.
func (s *filterStore) closeIdle(idle time.Duration) {
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
func (s *filterStore) every(interval time.Duration, fn func()) {
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

// Close syncs and closes every open filter; later acquires fail with
// mmapbloom.ErrClosed. Commands must have ended (no entry held).
func (s *filterStore) Close() error {
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
		s.dropLoadLocked([]byte(k))
	}
	for k := range s.setLoads {
		s.dropSetLoadLocked([]byte(k))
	}
	s.mu.Unlock()
	<-s.stopped
	return errors.Join(errs...)
}
