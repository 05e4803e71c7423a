package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// The keys' expiries (EXPIRE and its family, generic_expire.go): one
// sidecar file per data directory, expiresFile, a JSON object from a
// key's file-name stem to its expiry in Unix milliseconds, rewritten
// whole at each change (a temporary file, fsynced, renamed over it, the
// directory fsynced), so a restart keeps every acknowledged expiry. A
// key past its expiry answers as absent to every command: its file is
// removed at its next use (existsLocked, acquire) and by the background
// cycle (expireCycle); while another process holds it open the removal
// fails as DEL's does, is retried at each use and cycle, and the key
// still answers absent. Neither library handles nor other processes
// read this file: the expiry is the server's.

// expiresFile is the name of the data directory's expiry file.
const expiresFile = "EXPIRES"

// expiries is the expiry table of a data directory. Its lock is taken
// after the store's, never before.
type expiries struct {
	path string
	now  func() time.Time

	mu sync.Mutex
	at map[string]int64 // stem -> Unix ms
}

// loadExpiries reads dir's expiry file (none: no expiry); now is the
// clock expiries are compared with.
func loadExpiries(dir string, now func() time.Time) (*expiries, error) {
	x := &expiries{path: filepath.Join(dir, expiresFile), now: now, at: map[string]int64{}}
	b, err := os.ReadFile(x.path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &x.at)
	}
	if err != nil {
		return nil, fmt.Errorf("expiries: %s: %w", x.path, err)
	}
	return x, nil
}

// nowMs returns the clock's time in Unix milliseconds.
func (x *expiries) nowMs() int64 { return x.now().UnixMilli() }

// get returns stem's expiry in Unix ms, ok false when it has none.
func (x *expiries) get(stem string) (ms int64, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ms, ok = x.at[stem]
	return ms, ok
}

// expired reports whether stem has an expiry at or before now.
func (x *expiries) expired(stem string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.at) == 0 {
		return false
	}
	ms, ok := x.at[stem]
	return ok && ms <= x.nowMs()
}

// set gives stem the expiry ms (Unix ms) and writes the file.
func (x *expiries) set(stem string, ms int64) error {
	return x.change(func(at map[string]int64) bool { at[stem] = ms; return true })
}

// drop removes stem's expiry; ok false when it had none.
func (x *expiries) drop(stem string) (ok bool, err error) {
	err = x.change(func(at map[string]int64) bool {
		_, ok = at[stem]
		delete(at, stem)
		return ok
	})
	return ok, err
}

// move gives to the expiry from had (none: to has none) and drops
// from's (RENAME).
func (x *expiries) move(from, to string) error {
	return x.change(func(at map[string]int64) bool {
		ms, had := at[from]
		_, hadTo := at[to]
		delete(at, from)
		delete(at, to)
		if had {
			at[to] = ms
		}
		return had || hadTo
	})
}

// due returns the stems whose expiry is at or before now.
func (x *expiries) due() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := x.nowMs()
	var out []string
	for stem, ms := range x.at {
		if ms <= now {
			out = append(out, stem)
		}
	}
	return out
}

// stems returns every stem with an expiry.
func (x *expiries) stems() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]string, 0, len(x.at))
	for stem := range x.at {
		out = append(out, stem)
	}
	return out
}

// change applies fn to the table and, when fn reports a change, writes
// the file; on a write error the table is restored.
func (x *expiries) change(fn func(at map[string]int64) bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := make(map[string]int64, len(x.at))
	for k, v := range x.at {
		old[k] = v
	}
	if !fn(x.at) {
		return nil
	}
	if err := x.writeLocked(); err != nil {
		x.at = old
		return err
	}
	return nil
}

// writeLocked writes the table to the file atomically and durably.
func (x *expiries) writeLocked() error {
	b, err := json.Marshal(x.at)
	if err != nil {
		return fmt.Errorf("expiries: %w", err)
	}
	if err := durable.WriteFile(x.path, b, 0o644); err != nil {
		return fmt.Errorf("expiries: %w", err)
	}
	return nil
}

// reapLocked removes stem's file or set when its expiry has passed,
// reporting whether it expired (then the key answers absent, removed or
// not). A removal refused (another process holds the file) is retried
// at the next use and cycle.
func (s *store) reapLocked(stem string) bool {
	if !s.exp.expired(stem) {
		return false
	}
	_, _ = s.removeLocked(stem) // removeLocked drops the expiry once removed
	return true
}

// expireCycle removes the keys whose expiry has passed, and drops the
// expiries of keys whose file is gone (removed by another process), so
// a key created again under that name has none, as in Redis.
func (s *store) expireCycle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, stem := range s.exp.due() {
		s.reapLocked(stem)
	}
	for _, stem := range s.exp.stems() {
		if s.open[stem] != nil {
			continue
		}
		file, set := s.stemPaths(stem)
		if !exists(file) && !exists(set) {
			_, _ = s.exp.drop(stem)
		}
	}
}

// exists reports whether path exists (an error other than its absence
// counts as existing: nothing is dropped on a doubt).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// setExpiry gives key the expiry at (Unix ms) when allow accepts it
// given the key's current one (has false: none); set false when the key
// is missing or allow refused. An expiry already past removes the key
// (while another process holds it, the key answers absent until its
// removal succeeds).
func (s *store) setExpiry(key []byte, at int64, allow func(cur int64, has bool) bool) (set bool, err error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, err := s.existsLocked(stem); err != nil || !ok {
		return false, err
	}
	if !allow(s.exp.get(stem)) {
		return false, nil
	}
	if err := s.exp.set(stem, at); err != nil {
		return false, err
	}
	s.reapLocked(stem)
	return true, nil
}

// expiry returns key's expiry in Unix ms (has false: none); ok false
// when the key is missing.
func (s *store) expiry(key []byte) (at int64, has, ok bool, err error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return 0, false, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, err = s.existsLocked(stem); err != nil || !ok {
		return 0, false, false, err
	}
	at, has = s.exp.get(stem)
	return at, has, true, nil
}

// persist removes key's expiry: false when it had none or is missing.
func (s *store) persist(key []byte) (bool, error) {
	stem, err := keyname.Stem(key)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, err := s.existsLocked(stem); err != nil || !ok {
		return false, err
	}
	return s.exp.drop(stem)
}
