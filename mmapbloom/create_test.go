package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
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

// TestCreateLikeShards is the parallel build: shards created like one
// template (with a random seed) are filled apart, then merged; the union
// answers for every key. Create with the same n and p draws another seed,
// and Merge refuses it.
func TestCreateLikeShards(t *testing.T) {
	for _, opts := range batchLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			dir := t.TempDir()
			tmpl := newTestFilter(t, 30_000, 0.01, opts)
			shards := make([]*Filter, 3)
			for i := range shards {
				f, err := CreateLike(filepath.Join(dir, fmt.Sprintf("shard%d.bloom", i)), tmpl.Header(), nil)
				require.NoError(t, err)
				watch(t, f)
				want := tmpl.Header()
				require.Equal(t, want, f.Header())
				require.NoError(t, f.AddBatch(keysFrom(0, i*10_000, 10_000)))
				shards[i] = f
			}
			for _, s := range shards {
				require.NoError(t, tmpl.Merge(s))
			}
			present := make([]bool, 30_000)
			require.NoError(t, tmpl.TestBatch(keysOf(0, 30_000), present))
			require.NotContains(t, present, false)

			if opts.Format != format.V1 {
				other := newTestFilter(t, 30_000, 0.01, opts)
				require.ErrorIs(t, tmpl.Merge(other), ErrMismatch)
			}
		})
	}
}

// TestCreateLikeOptions: only Overwrite may be given with a shape.
func TestCreateLikeOptions(t *testing.T) {
	tmpl := newTestFilter(t, 1000, 0.01, nil)
	path := filepath.Join(t.TempDir(), "like.bloom")
	_, err := CreateLike(path, tmpl.Header(), &CreateOptions{Layout: format.LayoutClassic})
	require.ErrorIs(t, err, ErrBadOptions)
	f, err := CreateLike(path, tmpl.Header(), &CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = CreateLike(path, tmpl.Header(), nil)
	require.ErrorIs(t, err, ErrExists)
	f, err = CreateLike(path, tmpl.Header(), &CreateOptions{Overwrite: true})
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
