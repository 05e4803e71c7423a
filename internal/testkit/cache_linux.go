package testkit

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// DropFromCache writes back the file at path and drops it from the page
// cache (posix_fadvise DONTNEED: no root needed; pages that a live
// mapping holds stay), so that the next reads come from storage.
func DropFromCache(t testing.TB, path string) {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	require.NoError(t, file.Sync())
	require.NoError(t, unix.Fadvise(int(file.Fd()), 0, 0, unix.FADV_DONTNEED))
}

// ReadBytes returns the bytes this process has read from storage so far
// (/proc/self/io read_bytes), or -1 when the kernel does not report them.
func ReadBytes(t testing.TB) int64 {
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

// SkipUnlessReadsCounted skips the test unless reading the file at path
// after DropFromCache shows in ReadBytes: not on a file system without
// storage (tmpfs), nor where the kernel does not report the bytes.
func SkipUnlessReadsCounted(t testing.TB, path string) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	DropFromCache(t, path)
	before := ReadBytes(t)
	_, err = os.ReadFile(path)
	require.NoError(t, err)
	if before < 0 || ReadBytes(t)-before < st.Size()/2 {
		t.Skip("reads of this file are not counted as storage reads here (tmpfs? no /proc/self/io?)")
	}
}
