// Package testkit holds helpers shared by the project's tests: locating
// the shared reference data beside the repository and reading key files.
package testkit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// RepoRoot returns the repository's top directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Shared returns the path of rel inside the shared reference directory
// (../shared beside the repository, or $MMAPBLOOM_SHARED) for every test
// that reads the shared data. When it is absent the test fails under CI
// (environment CI=true), so that no vector test is ever skipped there
// unseen, and skips with a message elsewhere.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("MMAPBLOOM_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "..", "shared")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		missing(t, "shared data %s not available (set MMAPBLOOM_SHARED): %v", rel, err)
	}
	return p
}

// missing fails the test under CI (CI=true) and skips it elsewhere.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: "+format, args...)
	} else {
		t.Skipf(format, args...)
	}
}

// Lines reads a file (gzip-compressed when its name ends in .gz) and
// returns its LF-terminated lines without the LF.
func Lines(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(r)
		require.NoError(t, err)
		defer zr.Close()
		r = zr
	}
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	data = bytes.TrimSuffix(data, []byte("\n"))
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data, []byte("\n"))
}

// DirNames returns the names of dir's entries, sorted.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}
