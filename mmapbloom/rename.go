package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Rename moves the filter file at oldpath to newpath (replacing a file
// there), but only when no handle in any process has it open: it takes
// the exclusive lock without waiting, as Remove does, and fails with
// ErrInUse otherwise, since a process that has the file mapped would go
// on adding to a file no longer under the name it opened. The
// directories are synced afterwards. Errors: ErrInUse, the os error
// (fs.ErrNotExist for a missing file) wrapped.
func Rename(oldpath, newpath string) error {
	f, err := mapping.OpenFile(oldpath, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("mmapbloom: rename: %w", err)
	}
	defer f.Close()
	if err := mapping.LockExclusive(f); err != nil {
		return wrapf(err, "rename")
	}
	return renameSynced(oldpath, newpath)
}

// RenameSet moves the filter set in olddir to newdir (which must not
// exist, or be an empty directory), but only when no handle in any
// process has it open: it holds the set as RemoveSet does while it
// renames, failing with ErrInUse when any of its locks is held. Errors:
// ErrInUse, ErrBadSet, the os error (fs.ErrNotExist for a missing set)
// wrapped.
func RenameSet(olddir, newdir string) error {
	olddir = filepath.Clean(olddir)
	release, err := holdSet(olddir, "rename set")
	if err != nil {
		return err
	}
	defer release()
	return renameSynced(olddir, newdir)
}

// renameSynced renames oldpath to newpath and syncs the directories of
// both.
func renameSynced(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return fmt.Errorf("mmapbloom: rename: %w", err)
	}
	if err := mapping.SyncDir(filepath.Dir(newpath)); err != nil {
		return err
	}
	if filepath.Dir(oldpath) == filepath.Dir(newpath) {
		return nil
	}
	return mapping.SyncDir(filepath.Dir(oldpath))
}
