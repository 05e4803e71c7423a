package durable_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
)

// TestWriteFile: a file is created, then replaced whole, with its mode,
// and no temporary file is left beside it; a missing directory is
// ErrWrite and leaves nothing behind.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		require.NoError(t, durable.WriteFile(path, []byte(content), 0o640))
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, content, string(got))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "no temporary file left")
	}
	err := durable.WriteFile(filepath.Join(dir, "nosuch", "state"), []byte("x"), 0o644)
	require.ErrorIs(t, err, durable.ErrWrite)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestSyncDir: a directory syncs; a missing one is ErrWrite.
func TestSyncDir(t *testing.T) {
	require.NoError(t, durable.SyncDir(t.TempDir()))
	err := durable.SyncDir(filepath.Join(t.TempDir(), "nosuch"))
	require.ErrorIs(t, err, durable.ErrWrite)
	require.ErrorIs(t, err, os.ErrNotExist)
}
