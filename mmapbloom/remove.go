package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Remove deletes the filter file at path, but only when no handle in any
// process has it open: it takes the exclusive lock without waiting, as
// Create with Overwrite does on the file it replaces, and fails with
// ErrInUse otherwise, since unlinking a file another process has mapped
// would silently drop that process's later adds. The directory is synced
// afterwards. Errors: ErrInUse, the os error (fs.ErrNotExist for a
// missing file) wrapped.
func Remove(path string) error {
	f, err := mapping.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("mmapbloom: remove: %w", err)
	}
	defer f.Close()
	if err := mapping.LockExclusive(f); err != nil {
		return wrapf(err, "remove")
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("mmapbloom: remove: %w", err)
	}
	return mapping.SyncDir(filepath.Dir(path))
}

// RemoveSet deletes the filter set in dir, but only when no handle in any
// process has it open: it takes the set's LOCK (no change under way) and
// the exclusive lock of every layer the MANIFEST lists, without waiting
// (a layer file already lost is skipped: a broken set can be removed),
// and fails with ErrInUse when any is held, as Remove does for a file.
// While it holds them a concurrent OpenSet fails; the directory is then
// renamed to a hidden name beside it (so it disappears at once), removed,
// and its parent synced. Errors: ErrInUse, ErrBadSet, the os error
// (fs.ErrNotExist for a missing set) wrapped.
func RemoveSet(dir string) error {
	dir = filepath.Clean(dir)
	release, err := holdSet(dir, "remove set")
	if err != nil {
		return err
	}
	defer release()
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".rm*")
	if err != nil {
		return fmt.Errorf("mmapbloom: remove set: %w", err)
	}
	if err := os.Rename(dir, filepath.Join(tmp, "set")); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("mmapbloom: remove set: %w", err)
	}
	if err := mapping.SyncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return os.RemoveAll(tmp)
}

// holdSet takes, without waiting, the set's LOCK and the exclusive lock
// of every layer dir's MANIFEST lists (a layer file already lost is
// skipped), so that no handle in any process has the set open until
// release; op names the operation in errors. Errors: ErrInUse,
// ErrBadSet, the os error (fs.ErrNotExist for a missing set) wrapped.
func holdSet(dir, op string) (release func(), err error) {
	if _, err := os.Stat(filepath.Join(dir, manifest.ControlName)); err != nil {
		return nil, fmt.Errorf("mmapbloom: %s: %w", op, err)
	}
	unlock, err := lockSet(dir, false)
	if err != nil {
		return nil, err
	}
	var held []*os.File
	release = func() {
		for _, f := range held {
			_ = f.Close()
		}
		unlock()
	}
	m, err := manifest.Read(dir)
	if err != nil {
		release()
		return nil, err
	}
	for _, l := range m.Layers {
		f, err := mapping.OpenFile(filepath.Join(dir, l.File), os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue // lost already: no process can have it open
		}
		if err != nil {
			release()
			return nil, fmt.Errorf("mmapbloom: %s: %w", op, err)
		}
		held = append(held, f)
		if err := mapping.LockExclusive(f); err != nil {
			release()
			return nil, wrapf(err, "%s %s", op, dir)
		}
	}
	return release, nil
}
