// Package durable writes the small state files of the server and the
// replication log (expiry tables, log positions, markers) so that a
// crash or a power cut leaves either the old content or the new one,
// and makes creations, renames and removals in a directory survive a
// power cut (an fsync of the directory, as ext4 and XFS require).
package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// ErrWrite marks a state file or directory that could not be made
// durable; the file system's own error is wrapped beside it.
var ErrWrite = errors.New("durable write failed")

// WriteFile replaces the file at path with data (mode perm) atomically:
// a temporary file in the same directory is written and fsynced, then
// renamed over path (github.com/google/renameio/v2), and the directory is
// fsynced so that the rename survives a power cut. Errors: ErrWrite
// wrapped with path and the file system's error (a full disk, a missing
// directory); path keeps its old content then.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if err := renameio.WriteFile(path, data, perm); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir fsyncs directory dir, so that a file created, renamed or
// removed in it stays so after a power cut. Errors: ErrWrite wrapped with
// dir and the file system's error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	if err = errors.Join(d.Sync(), d.Close()); err != nil {
		return fmt.Errorf("%w: fsync %s: %w", ErrWrite, dir, err)
	}
	return nil
}
