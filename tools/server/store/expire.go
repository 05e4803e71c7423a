package store

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
)

// The keys' expiries (EXPIRE and its family,
// tools/server/generic_expire.go): one sidecar file per data directory,
// ExpiresFile, a JSON object from a key's file-name stem to its expiry
// in Unix milliseconds, rewritten whole at each change (a temporary
// file, fsynced, renamed over it, the directory fsynced), so a restart
// keeps every acknowledged expiry. A key past its expiry answers as
// absent to every command: its file is removed at its next use and by
// the background cycle (reap.go); while another
// process holds it open the removal fails as DEL's does, is retried at
// each use and cycle, and the key still answers absent. Neither library
// handles nor other processes read this file: the expiry is the
// server's.

// ExpiresFile is the name of the data directory's expiry file.
const ExpiresFile = "EXPIRES"

// Expiries is the expiry table of a data directory, by key file-name
// stem (keyname.Stem). Its methods are safe for concurrent use; its lock
// is taken after the Store's, never before.
type Expiries struct {
	path string
	now  func() time.Time

	mu sync.Mutex
	at map[string]int64 // stem -> Unix ms
}

// LoadExpiries reads dir's expiry file (none: no expiry); now is the
// clock expiries are compared with. Errors: the file's read or JSON
// decoding, wrapped.
func LoadExpiries(dir string, now func() time.Time) (*Expiries, error) {
	x := &Expiries{path: filepath.Join(dir, ExpiresFile), now: now, at: map[string]int64{}}
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
func (x *Expiries) nowMs() int64 { return x.now().UnixMilli() }

// Get returns stem's expiry in Unix ms, ok false when it has none.
func (x *Expiries) Get(stem string) (ms int64, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ms, ok = x.at[stem]
	return ms, ok
}

// Expired reports whether stem has an expiry at or before now.
func (x *Expiries) Expired(stem string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.at) == 0 {
		return false
	}
	ms, ok := x.at[stem]
	return ok && ms <= x.nowMs()
}

// Set gives stem the expiry ms (Unix ms) and writes the file. Errors:
// the file's write (the table is then unchanged), wrapped.
func (x *Expiries) Set(stem string, ms int64) error {
	return x.change(func(at map[string]int64) bool { at[stem] = ms; return true })
}

// Drop removes stem's expiry; ok false when it had none. Errors: as
// Set's.
func (x *Expiries) Drop(stem string) (ok bool, err error) {
	err = x.change(func(at map[string]int64) bool {
		_, ok = at[stem]
		delete(at, stem)
		return ok
	})
	return ok, err
}

// Move gives to the expiry from had (none: to has none) and drops
// from's (RENAME). Errors: as Set's.
func (x *Expiries) Move(from, to string) error {
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

// Due returns the stems whose expiry is at or before now.
func (x *Expiries) Due() []string {
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

// Stems returns every stem with an expiry.
func (x *Expiries) Stems() []string {
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
func (x *Expiries) change(fn func(at map[string]int64) bool) error {
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
func (x *Expiries) writeLocked() error {
	b, err := json.Marshal(x.at)
	if err != nil {
		return fmt.Errorf("expiries: %w", err)
	}
	if err := durable.WriteFile(x.path, b, 0o644); err != nil {
		return fmt.Errorf("expiries: %w", err)
	}
	return nil
}
