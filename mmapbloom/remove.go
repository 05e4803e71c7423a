package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
)

// Remove deletes the filter file at path, but only when no handle in any
// process has it open: it takes the exclusive lock without waiting, as
// Create with Overwrite does on the file it replaces, and fails with
// ErrInUse otherwise, since unlinking a file another process has mapped
// would silently drop that process's later adds. The directory is synced
// afterwards. Errors: ErrInUse, the os error (fs.ErrNotExist for a
// missing file) wrapped.
func Remove(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("mmapbloom: remove: %w", err)
	}
	defer f.Close()
	if err := lockExclusive(f); err != nil {
		return fmt.Errorf("mmapbloom: remove %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("mmapbloom: remove: %w", err)
	}
	return syncDir(filepath.Dir(path))
}
