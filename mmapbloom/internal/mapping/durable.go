package mapping

import (
	"errors"
	"fmt"
	"os"
)

// WriteSynced creates path with the bytes b and fsyncs it.
func WriteSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("mmapbloom: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("mmapbloom: write %s: %w", path, err)
	}
	return nil
}

// SyncDir fsyncs the directory dir, so that a rename or a new file in it
// survives a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("mmapbloom: sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("mmapbloom: sync directory %s: %w", dir, err)
	}
	return nil
}
