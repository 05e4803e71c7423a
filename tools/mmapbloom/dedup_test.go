package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func TestDedup(t *testing.T) {
	tests := []struct {
		name  string
		input string
		args  []string
		first string // printed by the first run
		count int    // keys in first
	}{
		{name: "duplicates", input: "a\nb\na\nc\nb\na\n", first: "a\nb\nc\n", count: 3},
		{name: "CRLF and empty lines", input: "a\r\n\na\n\n", first: "a\r\n\n", count: 2},
		{name: "final line without LF", input: "x\ny", first: "x\ny\n", count: 2},
		{name: "NUL keys", input: "a\x00a\nb\x00a\x00", args: []string{"-0"}, first: "a\x00a\nb\x00", count: 2},
		{name: "v1 file", input: "k\nk\n", args: []string{"--format", "v1", "--seed", "3"}, first: "k\n", count: 1},
		{name: "empty", input: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "seen.bloom")
			keys := writeFile(t, dir, "keys.txt", []byte(tt.input))
			args := append([]string{"dedup", path, "-n", "1000", "-p", "0.0001", keys}, tt.args...)
			r := runCLI(t, nil, args...)
			requireOK(t, r)
			require.Equal(t, tt.first, r.stdout)
			r = runCLI(t, nil, args...)
			requireOK(t, r)
			require.Empty(t, r.stdout, "second run printed lines")
			require.Equal(t, float64(tt.count), infoOf(t, path)["count"])
		})
	}
}

// TestDedupExistingChecksFlags: on an existing filter the flags given
// must match its header (the message names both values); the flags not
// given come from the file.
func TestDedupExistingChecksFlags(t *testing.T) {
	path := newFilter(t, "1000", "0.01")
	requireOK(t, runCLI(t, []byte("a\n"), "add", path))
	before := readFile(t, path)
	r := runCLI(t, []byte("a\nb\n"), "dedup", path, "-n", "5", "-p", "0.5", "--format", "v1", "--seed", "9")
	requireFailure(t, r, "n 5 given, the file has 1000; p 0.5 given, the file has 0.01; format v1.1 given, the file has v2; seed 9 given, the file has ")
	require.Empty(t, r.stdout)
	require.Equal(t, before, readFile(t, path), "filter changed")
	for _, args := range [][]string{{}, {"-n", "1000"}, {"-n", "1e3", "-p", "0.01", "--format", "v2", "--layout", "blocked512"}} {
		path := newFilter(t, "1000", "0.01")
		requireOK(t, runCLI(t, []byte("a\n"), "add", path))
		r = runCLI(t, []byte("a\nb\n"), append([]string{"dedup", path}, args...)...)
		requireOK(t, r)
		require.Equal(t, "b\n", r.stdout, "args %v", args)
	}
}

// TestSizeFlagForms: -n takes digit separators and e notation, --window
// takes days.
func TestSizeFlagForms(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"1e6", "1,000,000", "1_000_000", "1000000"} {
		path := filepath.Join(dir, "n"+n+".bloom")
		requireOK(t, runCLI(t, nil, "create", path, "-n", n, "-p", "0.01"))
		assert.Equal(t, float64(1_000_000), infoOf(t, path)["n"], n)
	}
	for w, want := range map[string]string{"1d": "24h0m0s", "7d": "168h0m0s", "1d12h": "36h0m0s", "90m": "1h30m0s"} {
		path := filepath.Join(dir, "w"+w+".bfset")
		requireOK(t, runCLI(t, nil, "create", path, "-n", "100", "-p", "0.01", "--window", w))
		assert.Equal(t, want, infoOf(t, path)["window"], w)
	}
}

func TestDedupSample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seen.bloom")
	sample := filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz")
	first := runCLI(t, nil, "dedup", path, "-n", "100000", "-p", "0.001", sample)
	requireOK(t, first)
	lines := strings.Count(first.stdout, "\n")
	assert.InDelta(t, 50000, lines, 100, "50,000 distinct URLs, a few false positives at p = 0.001")
	second := runCLI(t, nil, "dedup", path, sample)
	requireOK(t, second)
	assert.Empty(t, second.stdout)
}

func TestDedupBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.txt", []byte("good1\ngood2\n"))
	missing := filepath.Join(dir, "new.bloom")
	tests := []struct {
		name     string
		args     []string
		contains string
	}{
		{name: "no size", args: []string{missing, good}, contains: "-n and -p are needed"},
		{name: "no p", args: []string{missing, "-n", "10", good}, contains: "new.bloom does not exist: -p is needed to create it"},
		{name: "no n", args: []string{missing, "-p", "0.1", good}, contains: "new.bloom does not exist: -n is needed to create it"},
		{name: "bad p", args: []string{missing, "-n", "10", "-p", "1", good}, contains: "p must be"},
		{name: "n zero", args: []string{missing, "-n", "0", "-p", "0.1", good}, contains: "n must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, nil, append([]string{"dedup"}, tt.args...)...)
			requireFailure(t, r, tt.contains)
			require.Empty(t, r.stdout)
			require.NoFileExists(t, missing)
		})
	}
	for name, keyFile := range badKeyFiles(t) {
		t.Run("key file "+name, func(t *testing.T) {
			path := newFilter(t, "1000", "0.01")
			before := readFile(t, path)
			r := runCLI(t, nil, "dedup", path, good, keyFile)
			requireFailure(t, r, "key file")
			require.Empty(t, r.stdout)
			require.Equal(t, before, readFile(t, path), "filter changed")
			r = runCLI(t, nil, "dedup", missing, "-n", "10", "-p", "0.1", good, keyFile)
			requireFailure(t, r, "key file")
			require.NoFileExists(t, missing)
		})
	}
	for name, path := range badFilters(t) {
		t.Run("filter "+name, func(t *testing.T) {
			if name == "missing" {
				t.Skip("a missing filter is created")
			}
			before := readFile(t, path)
			requireFailure(t, runCLI(t, nil, "dedup", path, "-n", "10", "-p", "0.1", good), "")
			require.Equal(t, before, readFile(t, path), "filter changed")
		})
	}
}

// TestDedupRefresh: into a windowed set with --refresh a dedup hit
// re-adds its key to the current window, so a key seen every window is
// never forgotten; without --refresh it is forgotten Keep windows after
// it was first added. The windows move on an injected clock.
func TestDedupRefresh(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		t.Run(fmt.Sprint("refresh=", refresh), func(t *testing.T) {
			now := fakeClock(t)
			dir := filepath.Join(t.TempDir(), "w.bfset")
			args := []string{"dedup", dir, "-n", "100", "-p", "0.01", "--window", "1h", "--keep", "2"}
			if refresh {
				args = append(args, "--refresh")
			}
			var printed []string
			for range 3 {
				printed = append(printed, runCLI(t, []byte("a\n"), args...).stdout)
				now.Add(int64(time.Hour))
			}
			want := []string{"a\n", "", "a\n"}
			if refresh {
				want = []string{"a\n", "", ""}
			}
			assert.Equal(t, want, printed)
		})
	}
}

// plainStore hides a Filter's hash-passing calls: dedup then hashes
// every new key in its test and again in its claim.
type plainStore struct{ store }

// TestDedupHashesPassed: dedup on a filter passes each key's hash from
// its test to its claim (hashing it once) and prints the same lines and
// leaves the same file as with the hashes computed twice, over batches
// with keys repeated within and across them.
func TestDedupHashesPassed(t *testing.T) {
	batches := [][]string{
		{"a", "b", "a", "c"},
		{"c", "d", "b", "e", "e"},
		{"f", "a", "g"},
	}
	for i := range 3000 { // batches of the library's chunk size and more
		batches[i%3] = append(batches[i%3], fmt.Sprintf("https://h%d.example.com/%d", i%97, i))
	}
	var outs, files []string
	for _, passed := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "seen.bloom")
		f, err := mmapbloom.Create(path, 10_000, 0.0001, &mmapbloom.CreateOptions{Seed: 5, FixedSeed: true})
		require.NoError(t, err)
		var s store = f
		if !passed {
			s = plainStore{f}
		}
		var out bytes.Buffer
		d, err := newDeduper(s, &env{rawStdout: &out}, '\n', false)
		require.NoError(t, err)
		require.Equal(t, passed, d.hashed != nil)
		require.NoError(t, d.start(path))
		for _, keys := range batches {
			b := &batch{crs: make([]bool, len(keys))}
			for _, k := range keys {
				b.keys = append(b.keys, []byte(k))
			}
			require.NoError(t, d.batch(b))
		}
		require.NoError(t, errors.Join(d.close(), f.Close()))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		outs, files = append(outs, out.String()), append(files, string(data))
	}
	require.Equal(t, outs[1], outs[0])
	require.True(t, files[0] == files[1], "the files differ")
	require.Equal(t, 3007, strings.Count(outs[0], "\n"), "every distinct line once")
}
