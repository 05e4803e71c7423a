package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// TestRemoveStaleLoads: the temporary files and directories of loads
// and pulls that no process holds are removed; a held one, a key's own
// file and other names are kept.
func TestRemoveStaleLoads(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".k.bloom.load1", ".k.bloom.pull2"}
	staleDirs := []string{".s.bfset.load3", ".s.bfset.pull4"}
	kept := []string{"k.bloom", ".k.bloom", "k.bloom.load1", "EXPIRES"}
	for _, name := range append(stale, kept...) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	for _, name := range staleDirs {
		require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "MANIFEST"), nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "s.bfset"), 0o755))
	kept = append(kept, "s.bfset")

	held, err := os.Create(filepath.Join(dir, ".h.bloom.load5"))
	require.NoError(t, err)
	t.Cleanup(func() { held.Close() })
	require.NoError(t, store.LockLoad(held))
	heldDir, lock, err := store.LockedTempDir(dir, filepath.Join(dir, "t.bfset"), "load")
	require.NoError(t, err)
	t.Cleanup(func() { lock.Close() })
	assert.Regexp(t, `^\.t\.bfset\.load`, filepath.Base(heldDir))
	kept = append(kept, filepath.Base(held.Name()), filepath.Base(heldDir))

	n, err := store.RemoveStaleLoads(dir)
	require.NoError(t, err)
	assert.Equal(t, len(stale)+len(staleDirs), n)
	for _, name := range append(stale, staleDirs...) {
		assert.NoFileExists(t, filepath.Join(dir, name))
		assert.NoDirExists(t, filepath.Join(dir, name))
	}
	for _, name := range kept {
		_, err := os.Lstat(filepath.Join(dir, name))
		assert.NoError(t, err, "%s kept", name)
	}

	require.NoError(t, lock.Close())
	n, err = store.RemoveStaleLoads(dir)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the set load's directory, released")
	assert.NoDirExists(t, heldDir)
}
