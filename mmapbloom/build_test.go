package mmapbloom_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// buildKeys returns the keys both ways of filling a filter get: writer
// 1's sequence (every 11th key shared) and then its first 500 keys again,
// so that the count skips keys already present.
func buildKeys() [][]byte {
	return append(testkit.WriterKeys(1, 0, 20_000), testkit.WriterKeys(1, 0, 500)...)
}

// fillByAdds creates path with Create and adds keys through its shared
// mapping, one writer: the first key by Add, the rest in batches.
func fillByAdds(t *testing.T, path string, opts *mmapbloom.CreateOptions, keys [][]byte) {
	t.Helper()
	f, err := mmapbloom.Create(path, 20_000, 0.01, opts)
	require.NoError(t, err)
	require.NoError(t, f.Add(keys[0]))
	for i := 1; i < len(keys); i += 4096 {
		require.NoError(t, f.AddBatch(keys[i:min(i+4096, len(keys))]))
	}
	require.NoError(t, f.Close())
}

// fillByBuilder builds path with a Builder of opts (its Mode given), with
// the same calls as fillByAdds.
func fillByBuilder(t *testing.T, path string, opts *mmapbloom.BuildOptions, keys [][]byte) {
	t.Helper()
	b, err := mmapbloom.NewBuilder(path, 20_000, 0.01, opts)
	require.NoError(t, err)
	require.Equal(t, opts.Mode, b.Mode())
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "published before Finish")
	require.NoError(t, b.Add(keys[0]))
	for i := 1; i < len(keys); i += 4096 {
		require.NoError(t, b.AddBatch(keys[i:min(i+4096, len(keys))]))
	}
	require.NoError(t, b.Finish())
	require.ErrorIs(t, b.Add(keys[0]), mmapbloom.ErrClosed)
	require.ErrorIs(t, b.Finish(), mmapbloom.ErrClosed)
}

// TestBuildMatchesAdds: for every layout and format, a Builder (private
// or shared, atomic ORs or a single writer's plain ones, under every
// kernel) and adds to a Create'd file through its shared mapping, by one
// writer with the same fixed seed and keys, make byte-for-byte equal
// files: the same bits and header, count included (no header field
// differs: the data crc is written only by Seal).
func TestBuildMatchesAdds(t *testing.T) {
	keys := buildKeys()
	for _, opts := range filtertest.Layouts {
		for _, mode := range []mmapbloom.BuildMode{mmapbloom.BuildPrivate, mmapbloom.BuildShared} {
			for _, single := range []bool{false, true} {
				name := filtertest.LayoutName(opts) + "/" + mode.String()
				if single {
					name += "/single-writer"
				}
				t.Run(name, func(t *testing.T) {
					bo := &mmapbloom.BuildOptions{CreateOptions: *filtertest.WithSeed(opts, 42), Mode: mode, SingleWriter: single}
					kerneltest.ForEach(t, func(t *testing.T) { requireBuildMatchesAdds(t, bo, keys) })
				})
			}
		}
	}
}

// requireBuildMatchesAdds is one case of TestBuildMatchesAdds.
func requireBuildMatchesAdds(t *testing.T, bo *mmapbloom.BuildOptions, keys [][]byte) {
	dir := t.TempDir()
	added, built := filepath.Join(dir, "added.bloom"), filepath.Join(dir, "built.bloom")
	fillByAdds(t, added, &bo.CreateOptions, keys)
	fillByBuilder(t, built, bo, keys)
	want, err := os.ReadFile(added)
	require.NoError(t, err)
	got, err := os.ReadFile(built)
	require.NoError(t, err)
	require.True(t, len(want) == len(got) && string(want) == string(got), "files differ")
	f, err := mmapbloom.Open(built, &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer f.Close()
	c, err := f.Count()
	require.NoError(t, err)
	require.Greater(t, c, uint64(19_000))
	testkit.RequireAllPresent(t, f, 1, 0, 20_000)
	require.Equal(t, []string{"added.bloom", "built.bloom"}, testkit.DirNames(t, dir))
}

// TestBuildAbort: an aborted build publishes nothing and leaves no
// temporary file; a second Abort does nothing.
func TestBuildAbort(t *testing.T) {
	for _, mode := range []mmapbloom.BuildMode{mmapbloom.BuildPrivate, mmapbloom.BuildShared} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			b, err := mmapbloom.NewBuilder(filepath.Join(dir, "f.bloom"), 1000, 0.01, &mmapbloom.BuildOptions{Mode: mode})
			require.NoError(t, err)
			require.Len(t, testkit.DirNames(t, dir), 1, "the temporary file")
			require.NoError(t, b.AddBatch(testkit.WriterKeys(0, 0, 1000)))
			require.NoError(t, b.Abort())
			require.NoError(t, b.Abort())
			require.ErrorIs(t, b.Finish(), mmapbloom.ErrClosed)
			require.Empty(t, testkit.DirNames(t, dir))
		})
	}
}

// TestBuildRefused: bad options fail before any file is made; a file at
// path fails Finish with mmapbloom.ErrExists (no Overwrite) and keeps it, and
// Overwrite replaces it.
func TestBuildRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.bloom")
	for name, tc := range map[string]struct {
		n    uint64
		p    float64
		opts *mmapbloom.BuildOptions
		want error
	}{
		"n=0":        {0, 0.01, nil, mmapbloom.ErrInvalidN},
		"p=1":        {10, 1, nil, mmapbloom.ErrInvalidP},
		"mode=3":     {10, 0.01, &mmapbloom.BuildOptions{Mode: 3}, mmapbloom.ErrBadOptions},
		"v1-blocked": {10, 0.01, &mmapbloom.BuildOptions{CreateOptions: mmapbloom.CreateOptions{Format: format.V1, Layout: format.LayoutBlocked512}}, mmapbloom.ErrBadOptions},
	} {
		_, err := mmapbloom.NewBuilder(path, tc.n, tc.p, tc.opts)
		require.ErrorIs(t, err, tc.want, name)
	}
	require.Empty(t, testkit.DirNames(t, dir))

	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	b, err := mmapbloom.NewBuilder(path, 1000, 0.01, nil)
	require.NoError(t, err)
	require.ErrorIs(t, b.Finish(), mmapbloom.ErrExists)
	require.Equal(t, []string{"f.bloom"}, testkit.DirNames(t, dir))
	old, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old", string(old))

	b, err = mmapbloom.NewBuilder(path, 1000, 0.01, &mmapbloom.BuildOptions{CreateOptions: mmapbloom.CreateOptions{Overwrite: true}})
	require.NoError(t, err)
	require.NoError(t, b.Add([]byte("k")))
	require.NoError(t, b.Finish())
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer f.Close()
	ok, err := f.Test([]byte("k"))
	require.NoError(t, err)
	require.True(t, ok)
}

// TestPrivateFits: a private build leaves an eighth of the available
// memory, at least 256 MiB.
func TestPrivateFits(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		size, avail uint64
		want        bool
	}{
		{1, 0, false},
		{1, 256 * mib, false},
		{1, 257 * mib, true},
		{mib, 257 * mib, true},
		{mib + 1, 257 * mib, false},
		{7 * 1024 * mib, 8 * 1024 * mib, true},
		{7*1024*mib + 1, 8 * 1024 * mib, false},
	} {
		require.Equal(t, tc.want, mmapbloom.PrivateFits(tc.size, tc.avail), "size %d, avail %d", tc.size, tc.avail)
	}
}
