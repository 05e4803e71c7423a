package mmapbloom

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRemove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.bloom")
	f, err := Create(path, 1000, 0.01, nil)
	require.NoError(t, err)

	require.ErrorIs(t, Remove(path), ErrInUse, "a handle has it open")
	require.FileExists(t, path)
	require.NoError(t, f.Add([]byte("kept")))

	require.NoError(t, f.Close())
	require.NoError(t, Remove(path))
	require.NoFileExists(t, path)
	require.ErrorIs(t, Remove(path), fs.ErrNotExist)
}
