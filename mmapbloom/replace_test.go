package mmapbloom_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestReplace: a copy is renamed over a filter file no handle has open,
// or into a missing name; while a handle has the file open, Replace
// fails with ErrInUse and leaves both files as they were.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	dst, src := filepath.Join(dir, "k.bloom"), filepath.Join(dir, ".k.copy")
	mk := func(path, key string) {
		f, err := mmapbloom.Create(path, 1000, 0.01, nil)
		require.NoError(t, err)
		require.NoError(t, f.AddString(key))
		require.NoError(t, f.Close())
	}
	has := func(path, key string) bool {
		f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		defer f.Close()
		ok, err := f.TestString(key)
		require.NoError(t, err)
		return ok
	}
	mk(src, "new")
	require.NoError(t, mmapbloom.Replace(src, dst), "into a missing name")
	assert.True(t, has(dst, "new"))

	mk(src, "newer")
	live, err := mmapbloom.Open(dst, nil)
	require.NoError(t, err)
	require.ErrorIs(t, mmapbloom.Replace(src, dst), mmapbloom.ErrInUse)
	assert.FileExists(t, src)
	require.NoError(t, live.Close())
	assert.True(t, has(dst, "new"), "unchanged while in use")

	require.NoError(t, mmapbloom.Replace(src, dst))
	assert.True(t, has(dst, "newer"))
	_, err = os.Stat(src)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
