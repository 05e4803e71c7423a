// Package testkit holds helpers shared by the project's tests: locating
// the repository's test data and reading key files, running child
// processes under a context with a deadline (Command, Process), bounding
// a count of false positives of a filter with a random seed
// (FalsePositiveLimit).
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

// Testdata returns the path of rel inside the repository's top testdata/
// directory (the interoperability vectors, the real URL sample), which
// every test that reads shared data uses, so that a clone of the
// repository alone runs them all.
func Testdata(rel string) string {
	return filepath.Join(RepoRoot(), "testdata", filepath.FromSlash(rel))
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
