package mmapbloom

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreateBareName creates a filter by a bare file name in a directory
// on another file system than os.TempDir (/dev/shm, a tmpfs): the file is
// built beside its final name, not in the temporary directory, so the
// final link never crosses devices.
func TestCreateBareName(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "mmapbloom-test")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	t.Chdir(dir)
	f, err := Create("bare.bloom", 100, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the filter, no temporary file")
	require.Equal(t, "bare.bloom", entries[0].Name())
}
