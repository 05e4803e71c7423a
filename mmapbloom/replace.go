package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Replace renames the file src over the filter file dst (a complete
// copy shipped in beside it), but only when no handle in any process has
// dst open: it takes dst's exclusive lock without waiting, as Remove
// does, and holds it across the rename, so that no handle keeps mapping
// (and adding to) the file it unlinks. A missing dst is simply created
// by the rename. The directory is synced afterwards. Errors: ErrInUse,
// the os error wrapped.
func Replace(src, dst string) error {
	f, err := mapping.OpenFile(dst, os.O_RDONLY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("mmapbloom: replace: %w", err)
	default:
		defer f.Close()
		if err := mapping.LockExclusive(f); err != nil {
			return wrapf(err, "replace")
		}
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("mmapbloom: replace: %w", err)
	}
	return mapping.SyncDir(filepath.Dir(dst))
}
