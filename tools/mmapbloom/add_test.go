package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// vectorArgs are the create flags that reproduce each seed003 vector.
var vectorArgs = map[string][]string{
	"urls-n10000-p0.0001-seed0": {"--format", "v1", "--seed", "0", "-n", "10000", "-p", "0.0001"},
	"mixed-n1000-p0.01-seed7":   {"--format", "v1", "--seed", "7", "-n", "1000", "-p", "0.01"},
}

func TestAddVectors(t *testing.T) {
	for _, name := range vectorNames {
		t.Run(name, func(t *testing.T) {
			bin, added, _, _ := vector(t, name)
			path := filepath.Join(t.TempDir(), "f.bloom")
			requireOK(t, runCLI(t, nil, append([]string{"create", path}, vectorArgs[name]...)...))
			requireOK(t, runCLI(t, nil, "add", path, added))
			require.Equal(t, readFile(t, bin), readFile(t, path), "file differs from the reference vector")
		})
	}
}

func TestAdd(t *testing.T) {
	dir := t.TempDir()
	lines := writeFile(t, dir, "lines.txt", []byte("one\ntwo\r\n\nthree"))
	gz := filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz")
	tests := []struct {
		name  string
		stdin string
		args  []string
		count float64
	}{
		{name: "stdin", stdin: "a\nb\nc\n", count: 3},
		{name: "stdin dash", stdin: "a\nb\n", args: []string{"-"}, count: 2},
		{name: "file", args: []string{lines}, count: 4},
		{name: "file and stdin", stdin: "x\n", args: []string{lines, "-", lines}, count: 5}, // 9 adds of 5 distinct keys
		{name: "NUL keys", stdin: "a\x00b\x00c", args: []string{"-0"}, count: 3},
		{name: "empty input", count: 0},
		{name: "gzip", args: []string{gz}, count: 50000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := newFilter(t, "100000", "0.001")
			r := runCLI(t, []byte(tt.stdin), append([]string{"add", path}, tt.args...)...)
			requireOK(t, r)
			require.Empty(t, r.stdout)
			require.Equal(t, tt.count, infoOf(t, path)["count"])
		})
	}
}

func TestAddOverCapacity(t *testing.T) {
	path := newFilter(t, "3", "0.0001") // four new keys: none a false positive
	r := runCLI(t, []byte("a\nb\nc\n"), "add", path)
	requireOK(t, r)
	r = runCLI(t, []byte("d\n"), "add", path)
	require.Equal(t, exitOK, r.code)
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, "mmapbloom: warning: "+path+" holds 4 keys, more than its capacity n = 3: false-positive rate about ")
}

// badKeyFiles returns key files that add, test and dedup must refuse
// before reading any key, by name.
func badKeyFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	sample := readFile(t, filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz"))
	files := map[string]string{
		"missing":       filepath.Join(dir, "missing.txt"),
		"directory":     t.TempDir(),
		"not gzip":      writeFile(t, dir, "plain.txt.gz", []byte("a\nb\n")),
		"truncated gz":  writeFile(t, dir, "truncated.txt.gz", sample[:len(sample)/2]),
		"corrupt gz":    writeFile(t, dir, "corrupt.txt.gz", corruptGzip(sample)),
		"dangling link": filepath.Join(dir, "link.txt"),
	}
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), files["dangling link"]))
	if os.Geteuid() != 0 { // root reads any file
		files["unreadable"] = writeFile(t, dir, "unreadable.txt", []byte("a\n"))
		require.NoError(t, os.Chmod(files["unreadable"], 0))
	}
	return files
}

// corruptGzip flips a byte of the compressed data of a gzip file.
func corruptGzip(gz []byte) []byte {
	b := bytes.Clone(gz)
	b[len(b)/2] ^= 0x55
	return b
}

func TestAddBadInput(t *testing.T) {
	good := writeFile(t, t.TempDir(), "good.txt", []byte("good1\ngood2\n"))
	for name, keyFile := range badKeyFiles(t) {
		t.Run("key file "+name, func(t *testing.T) {
			path := newFilter(t, "1000", "0.01")
			before := readFile(t, path)
			requireFailure(t, runCLI(t, []byte("stdin\n"), "add", path, good, keyFile, "-"), "key file")
			require.Equal(t, before, readFile(t, path), "filter changed")
		})
	}
	for name, path := range badFilters(t) {
		t.Run("filter "+name, func(t *testing.T) {
			before := readFile(t, path)
			requireFailure(t, runCLI(t, []byte("key\n"), "add", path, good), "")
			require.Equal(t, before, readFile(t, path), "filter changed")
		})
	}
}
