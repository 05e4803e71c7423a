package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

// lockName is the file of a set whose exclusive open file description
// lock (mapping.Upgrade) is held while a layer is added or dropped
// or garbage is collected, and only then.
const lockName = "LOCK"

// changeFunc changes a freshly read MANIFEST in memory, creating any new
// layer file; it returns the layer files to unlink once the change is
// published, and whether it changed anything.
type changeFunc func(m *manifest.Manifest) (dropped []string, changed bool, err error)

// change runs fn on the MANIFEST under the set's exclusive LOCK, waiting
// while another handle holds it (that handle may be making the same
// change, which fn then finds made), or, without wait, failing with
// ErrInUse. If fn
// changed it, the MANIFEST is written with the next generation (write,
// fsync, rename, fsync directory), then CONTROL's generation is raised to
// it, then the dropped files are unlinked. Before fn runs, a generation
// left behind by a crash after a rename is repaired.
func (s *Set) change(wait bool, fn changeFunc) (bool, error) {
	if s.readOnly {
		return false, s.readOnlyError()
	}
	return changeDir(s.dir, s.ctl, wait, fn)
}

// readOnlyError returns why a handle opened read-only cannot write:
// ErrSealed for a sealed set (OpenSet opens those read-only), else
// ErrReadOnly, wrapped with the set's directory.
func (s *Set) readOnlyError() error {
	if v := s.view.Load(); v != nil && v.m.Sealed {
		return fmt.Errorf("mmapbloom: set %s: %w", s.dir, ErrSealed)
	}
	return fmt.Errorf("mmapbloom: set %s: %w", s.dir, ErrReadOnly)
}

// changeDir is change on the set in dir whose CONTROL is mapped
// (read-write) as ctl.
func changeDir(dir string, ctl *manifest.Control, wait bool, fn changeFunc) (bool, error) {
	m, unlock, err := lockedManifest(dir, func(dir string) (func(), error) { return lockSet(dir, wait) })
	if err != nil {
		return false, err
	}
	defer unlock()
	ctl.Raise(m.Generation)
	dropped, changed, err := fn(m)
	if err != nil || !changed {
		return false, err
	}
	m.Generation++
	if err := manifest.Write(dir, m); err != nil {
		return false, err
	}
	testhooks.Crash("manifest-renamed")
	ctl.Raise(m.Generation)
	for _, name := range dropped {
		_ = os.Remove(filepath.Join(dir, name))
	}
	return true, nil
}

// lockedManifest takes a lock on dir's LOCK file with lock (lockSet or
// shareSet) and reads the MANIFEST under it; the caller releases the lock
// with unlock (nil on error).
func lockedManifest(dir string, lock func(dir string) (func(), error)) (m *manifest.Manifest, unlock func(), err error) {
	if unlock, err = lock(dir); err != nil {
		return nil, nil, err
	}
	if m, err = manifest.Read(dir); err != nil {
		unlock()
		return nil, nil, err
	}
	return m, unlock, nil
}

// lockSet takes the exclusive lock of dir's LOCK file, waiting for it or
// not, and returns the function that releases it.
func lockSet(dir string, wait bool) (unlock func(), err error) {
	f, err := mapping.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	lock := mapping.Upgrade
	if wait {
		lock = mapping.WaitExclusive
	}
	if err := lock(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}

// shareSet takes a shared lock on dir's LOCK file, waiting while a change
// holds it exclusively, so that no layer is added or dropped until the
// returned function releases it; other shared holders do not exclude
// each other. LOCK is opened read-only (created if missing, as lockSet
// does), so a set on a read-only file system can be locked too.
func shareSet(dir string) (unlock func(), err error) {
	f, err := mapping.OpenFile(filepath.Join(dir, lockName), os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	if err := mapping.WaitShared(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}

// layerOptions returns the options a new layer at p is created with.
func layerOptions(m *manifest.Manifest, p float64) *CreateOptions {
	layout := m.Layout
	if layout == format.LayoutBlocked512 && p < MinBlockedP {
		layout = 0 // Create's choice: classic, since blocked is refused below MinBlockedP
	}
	return &CreateOptions{Layout: layout, Seed: m.Seed, FixedSeed: true}
}

// addLayer creates the next layer file of m (for window window of a
// windowed set: its first layer, or the next when the window grows) and appends it to m.Layers. A file already at its name is
// the orphan of a change that crashed before its rename; the caller holds
// LOCK, so it is removed first. before, when not nil, may refuse the layer
// first (OpenOptions.BeforeLayer).
func addLayer(dir string, m *manifest.Manifest, window int64, before func(int, uint64) error) error {
	n, p, err := nextLayer(m, window)
	if err != nil {
		return err
	}
	name := manifest.LayerName(m.Next)
	if err := checkLayer(before, len(m.Layers)+1, n, p, layerOptions(m, p)); err != nil {
		return fmt.Errorf("mmapbloom: set layer %s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("mmapbloom: remove orphan layer: %w", err)
	}
	f, err := Create(path, n, p, layerOptions(m, p))
	if err != nil {
		return wrapf(err, "set layer %s", name)
	}
	if err := f.Close(); err != nil {
		return err
	}
	testhooks.Crash("layer-created")
	m.Layers = append(m.Layers, manifest.Layer{File: name, N: n, P: p, Window: window})
	m.Next++
	return nil
}

// checkLayer asks before (when not nil) whether a set may hold layers
// layers with a new one of n keys at p made with opts.
func checkLayer(before func(int, uint64) error, layers int, n uint64, p float64, opts *CreateOptions) error {
	if before == nil {
		return nil
	}
	size, err := FileSize(n, p, opts)
	if err != nil {
		return err
	}
	return before(layers, size)
}
