package mapping

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
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

// WriteFile writes b to the file f from offset 0, in the file system's
// large writes, and fsyncs it: a filter built in memory (Private) reaches
// its file once. A full disk is errs.ErrNoSpace.
func WriteFile(f *os.File, b []byte) error {
	_, err := f.WriteAt(b, 0)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("mmapbloom: write %s: %w", f.Name(), noSpace(err))
	}
	return nil
}

// noSpace wraps ENOSPC and EDQUOT with errs.ErrNoSpace.
func noSpace(err error) error {
	if errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT) {
		return fmt.Errorf("%w: %w", errs.ErrNoSpace, err)
	}
	return err
}
