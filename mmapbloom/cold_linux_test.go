package mmapbloom

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestColdProbeReadsAPage drops a written 32 MiB filter from the page
// cache and checks how much a first Test reads from disk
// (/proc/self/io read_bytes): a few pages by default, where the huge-page
// advice (OpenOptions.HugePages) may fault in a whole 2 MiB folio.
func TestColdProbeReadsAPage(t *testing.T) {
	path := t.TempDir() + "/cold.bloom"
	f, err := Create(path, 14_000_000, 1e-4, nil) // about 32 MiB
	require.NoError(t, err)
	for i := range f.words {
		f.words[i] = ^uint64(0) // real blocks on disk, not a hole
	}
	f.addCount(1) // a filter holding keys: an empty one is opened as one being built (building)
	require.NoError(t, f.Close())
	testkit.SkipUnlessReadsCounted(t, path)
	require.Less(t, coldTestRead(t, path, nil), int64(128<<10), "a cold single probe reads about one page")
	t.Logf("with HugePages: %d bytes", coldTestRead(t, path, &OpenOptions{ReadOnly: true, HugePages: true}))
}

// coldTestRead drops the file at path from the page cache, opens it with
// opts and returns the bytes the first Test read from storage.
func coldTestRead(t *testing.T, path string, opts *OpenOptions) int64 {
	t.Helper()
	testkit.DropFromCache(t, path)
	f, err := Open(path, opts)
	require.NoError(t, err)
	defer f.Close()
	before := testkit.ReadBytes(t)
	ok, err := f.Test([]byte("https://example.com/cold"))
	require.NoError(t, err)
	require.True(t, ok)
	read := testkit.ReadBytes(t) - before
	t.Logf("first cold Test read %d bytes", read)
	return read
}
