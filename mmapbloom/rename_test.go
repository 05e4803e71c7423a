package mmapbloom_test

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func TestRename(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.bloom"), filepath.Join(dir, "b.bloom")
	f, err := mmapbloom.Create(from, 1000, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Add([]byte("kept")))

	require.ErrorIs(t, mmapbloom.Rename(from, to), mmapbloom.ErrInUse, "a handle has it open")
	require.FileExists(t, from)
	require.NoFileExists(t, to)

	require.NoError(t, f.Close())
	require.NoError(t, mmapbloom.Rename(from, to))
	require.NoFileExists(t, from)
	g, err := mmapbloom.Open(to, nil)
	require.NoError(t, err)
	ok, err := g.Test([]byte("kept"))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, g.Close())
	require.ErrorIs(t, mmapbloom.Rename(from, to), fs.ErrNotExist)
}

func TestRenameSet(t *testing.T) {
	root := t.TempDir()
	from, to := filepath.Join(root, "a.bfset"), filepath.Join(root, "b.bfset")
	s, err := mmapbloom.CreateSet(from, 100, 0.01, nil)
	require.NoError(t, err)
	for i := range 500 { // past the first layer's capacity: several layers
		require.NoError(t, s.Add([]byte{byte(i), byte(i >> 8)}))
	}
	require.Greater(t, s.Layers(), 1)

	require.ErrorIs(t, mmapbloom.RenameSet(from, to), mmapbloom.ErrInUse, "a handle has it open")
	require.DirExists(t, from)
	require.NoDirExists(t, to)

	require.NoError(t, s.Close())
	require.NoError(t, mmapbloom.RenameSet(from, to))
	require.NoDirExists(t, from)
	s, err = mmapbloom.OpenSet(to, nil)
	require.NoError(t, err)
	ok, err := s.Test([]byte{1, 0})
	require.NoError(t, err)
	require.True(t, ok, "the renamed set holds its keys")
	require.NoError(t, s.Close())
	require.ErrorIs(t, mmapbloom.RenameSet(from, to), fs.ErrNotExist)
}
