package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// GC removes the files a crashed change or CreateSet left in the set's
// directory: layer files (L*.bloom) the MANIFEST does not list, Create's
// temporary files (.L*.tmp*) and MANIFEST.tmp.*. It holds LOCK, so no
// change is under way and every such file is an orphan; files a handle
// still maps stay readable to it after the unlink. It returns the names
// removed. Errors: ErrClosed, ErrReadOnly, ErrInUse (a change is under
// way; try again), the os error.
func (s *Set) GC() (removed []string, err error) {
	err = s.do(func(*setView) error {
		_, err := s.change(false, func(m *manifest.Manifest) ([]string, bool, error) {
			removed, err = removeOrphans(s.dir, m)
			return nil, false, err
		})
		return err
	})
	return removed, err
}

// removeOrphans removes dir's files that m does not list and that only a
// crash leaves behind.
func removeOrphans(dir string, m *manifest.Manifest) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	var removed []string
	for _, e := range entries {
		if !isOrphan(e.Name(), m) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return removed, fmt.Errorf("mmapbloom: gc: %w", err)
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

// isOrphan reports whether name is a file of the set's kinds that m
// does not use.
func isOrphan(name string, m *manifest.Manifest) bool {
	switch {
	case strings.HasPrefix(name, "L") && strings.HasSuffix(name, ".bloom"):
		return !m.Lists(name)
	case strings.HasPrefix(name, ".L") && strings.Contains(name, ".bloom.tmp"):
		return true
	}
	return strings.HasPrefix(name, manifest.Name+".tmp.")
}
