package mmapbloom_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func TestRemove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.bloom")
	f, err := mmapbloom.Create(path, 1000, 0.01, nil)
	require.NoError(t, err)

	require.ErrorIs(t, mmapbloom.Remove(path), mmapbloom.ErrInUse, "a handle has it open")
	require.FileExists(t, path)
	require.NoError(t, f.Add([]byte("kept")))

	require.NoError(t, f.Close())
	require.NoError(t, mmapbloom.Remove(path))
	require.NoFileExists(t, path)
	require.ErrorIs(t, mmapbloom.Remove(path), fs.ErrNotExist)
}

func TestRemoveSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.bfset")
	s, err := mmapbloom.CreateSet(dir, 100, 0.01, nil)
	require.NoError(t, err)
	for i := range 500 { // past the first layer's capacity: several layers
		require.NoError(t, s.Add([]byte{byte(i), byte(i >> 8)}))
	}
	require.Greater(t, s.Layers(), 1)

	require.ErrorIs(t, mmapbloom.RemoveSet(dir), mmapbloom.ErrInUse, "a handle has it open")
	require.DirExists(t, dir)
	ok, err := s.Test([]byte{1, 0})
	require.NoError(t, err)
	require.True(t, ok, "the refused removal kept the set whole")

	require.NoError(t, s.Close())
	require.NoError(t, mmapbloom.RemoveSet(dir))
	require.NoDirExists(t, dir)
	left, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	require.Empty(t, left, "no hidden directory left behind")
	require.ErrorIs(t, mmapbloom.RemoveSet(dir), fs.ErrNotExist)

	// A set that lost a layer file can still be removed.
	s, err = mmapbloom.CreateSet(dir, 100, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, "L000000.bloom")))
	require.NoError(t, mmapbloom.RemoveSet(dir))
	require.NoDirExists(t, dir)
}
