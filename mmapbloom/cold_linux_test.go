package mmapbloom

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestColdProbeReadsAPage drops a written 32 MiB filter from the page
// cache and checks how much a first Test reads from disk
// (/proc/self/io read_bytes): a few pages by default, where the huge-page
// advice (OpenOptions.HugePages) may fault in a whole 2 MiB folio.
func TestColdProbeReadsAPage(t *testing.T) {
	if readBytes(t) < 0 {
		t.Skip("no /proc/self/io read_bytes here")
	}
	path := t.TempDir() + "/cold.bloom"
	f, err := Create(path, 14_000_000, 1e-4, nil) // about 32 MiB
	require.NoError(t, err)
	for i := range f.words {
		f.words[i] = ^uint64(0) // real blocks on disk, not a hole
	}
	require.NoError(t, f.Close())
	require.Less(t, coldTestRead(t, path, nil), int64(128<<10), "a cold single probe reads about one page")
	t.Logf("with HugePages: %d bytes", coldTestRead(t, path, &OpenOptions{ReadOnly: true, HugePages: true}))
}

// coldTestRead drops the file at path from the page cache, opens it with
// opts and returns the bytes the first Test read from storage.
func coldTestRead(t *testing.T, path string, opts *OpenOptions) int64 {
	t.Helper()
	dropFromCache(t, path)
	f, err := Open(path, opts)
	require.NoError(t, err)
	defer f.Close()
	before := readBytes(t)
	ok, err := f.Test([]byte("https://example.com/cold"))
	require.NoError(t, err)
	require.True(t, ok)
	read := readBytes(t) - before
	t.Logf("first cold Test read %d bytes", read)
	return read
}

// dropFromCache writes back and drops the file at path from the page
// cache (posix_fadvise DONTNEED: no root needed; pages mapped by a live
// mapping stay).
func dropFromCache(t *testing.T, path string) {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	require.NoError(t, file.Sync())
	require.NoError(t, unix.Fadvise(int(file.Fd()), 0, 0, unix.FADV_DONTNEED))
}

// readBytes returns this process's bytes read from storage so far, or -1
// when the kernel does not report them.
func readBytes(t *testing.T) int64 {
	t.Helper()
	file, err := os.Open("/proc/self/io")
	if err != nil {
		return -1
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "read_bytes: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	return -1
}
