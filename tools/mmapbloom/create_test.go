package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func TestCreate(t *testing.T) {
	m, k, err := mmapbloom.OptimalClassic(1000, 0.01)
	require.NoError(t, err)
	bm, bk, err := mmapbloom.OptimalBlocked(1000, 0.01)
	require.NoError(t, err)
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{
			name: "v2 default",
			args: []string{"-n", "1000", "-p", "0.01", "--seed", "7"},
			want: map[string]any{"format_version": "v2", "layout": "blocked512", "scheme": "xxh3-blocked",
				"m": float64(bm), "k": float64(bk), "n": 1000.0, "p": 0.01, "seed": 7.0, "count": 0.0, "theoretical_fpr_at_count": 0.0},
		},
		{
			name: "v2 classic",
			args: []string{"-n", "1000", "-p", "0.01", "--seed", "7", "--layout", "classic"},
			want: map[string]any{"format_version": "v2", "layout": "classic", "scheme": "xxh3-remix",
				"m": float64(m), "k": float64(k), "n": 1000.0, "p": 0.01, "seed": 7.0},
		},
		{
			name: "v2 default below the blocked floor",
			args: []string{"-n", "1000", "-p", "1e-7"},
			want: map[string]any{"format_version": "v2", "layout": "classic", "scheme": "xxh3-remix"},
		},
		{
			name: "v1 as vector urls-n10000-p0.0001-seed0",
			args: []string{"--format", "v1", "--seed", "0", "-n", "10000", "-p", "0.0001"},
			want: map[string]any{"format_version": "v1.1", "scheme": "murmur2-double-v1",
				"m": 191744.0, "k": 13.0, "seed": 0.0, "byte_size": 23968.0, "file_size": 24032.0},
		},
		{
			name: "seeded scheme, prime m",
			args: []string{"--scheme", "murmur2-seeds", "--prime", "--seed", "314159265", "-n", "1000", "-p", "0.05"},
			want: map[string]any{"scheme": "murmur2-seeds", "m": 6247.0, "k": 5.0, "seed": 314159265.0},
		},
		{
			name: "seeded scheme, long flags",
			args: []string{"--scheme=murmur2-seeds", "--capacity=100000", "--probability=0.001"},
			want: map[string]any{"scheme": "murmur2-seeds", "m": 1437758.0, "k": 10.0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.bloom")
			requireOK(t, runCLI(t, nil, append([]string{"create", path}, tt.args...)...))
			got := infoOf(t, path)
			for field, want := range tt.want {
				assert.Equal(t, want, got[field], field)
			}
		})
	}
}

func TestCreateRandomSeed(t *testing.T) {
	a, b := newFilterNoSeed(t), newFilterNoSeed(t)
	assert.NotEqual(t, infoOf(t, a)["seed"], infoOf(t, b)["seed"])
}

func newFilterNoSeed(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "f.bloom")
	requireOK(t, runCLI(t, nil, "create", path, "-n", "100", "-p", "0.01"))
	return path
}

func TestCreateForce(t *testing.T) {
	path := newFilter(t, "1000", "0.01")
	requireOK(t, runCLI(t, []byte("key\n"), "add", path))
	requireOK(t, runCLI(t, nil, "create", "--force", path, "-n", "50", "-p", "0.1"))
	got := infoOf(t, path)
	assert.Equal(t, 50.0, got["n"])
	assert.Equal(t, 0.0, got["count"])
}

func TestCreateBadInput(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		contains string
	}{
		{name: "p zero", args: []string{"-n", "10", "-p", "0"}, contains: "p must be"},
		{name: "p one", args: []string{"-n", "10", "-p", "1"}, contains: "p must be"},
		{name: "p above one", args: []string{"-n", "10", "-p", "1.5"}, contains: "p must be"},
		{name: "p NaN", args: []string{"-n", "10", "-p", "NaN"}, contains: "p must be"},
		{name: "p Inf", args: []string{"-n", "10", "-p", "Inf"}, contains: "p must be"},
		{name: "p negative", args: []string{"-n", "10", "-p=-0.5"}, contains: "probability"},
		{name: "p not a number", args: []string{"-n", "10", "-p", "often"}, contains: "probability"},
		{name: "n zero", args: []string{"-n", "0", "-p", "0.01"}, contains: "n must be"},
		{name: "n missing", args: []string{"-p", "0.01"}, contains: "-n is missing: give -n and -p, or --like"},
		{name: "p missing", args: []string{"-n", "10"}, contains: "-p is missing: give -n and -p, or --like"},
		{name: "n a fraction", args: []string{"-n", "1.5e0", "-p", "0.01"}, contains: `"1.5e0" is not an unsigned integer (write 1000000, 1_000_000, 1,000,000 or 1e6)`},
		{name: "n a word", args: []string{"-n", "many", "-p", "0.01"}, contains: `"many" is not an unsigned integer`},
		{name: "window on a filter name", args: []string{"-n", "10", "-p", "0.01", "--window", "24h"}, contains: "--window makes a filter set: name it "},
		{name: "window not a duration", args: []string{"-n", "10", "-p", "0.01", "--window", "1 day"}, contains: `"1 day" is not a duration (write 24h, 90m, 1d or 7d)`},
		{name: "exist-ok with force", args: []string{"-n", "10", "-p", "0.01", "--exist-ok", "--force"}, contains: "--exist-ok keeps an existing FILE"},
		{name: "p too small for k", args: []string{"-n", "10", "-p", "1e-300"}, contains: "out of range"},
		{name: "v1 seed above 32 bits", args: []string{"--format", "v1", "--seed", "4294967296", "-n", "10", "-p", "0.01"}, contains: "incompatible"},
		{name: "v1 seeded scheme", args: []string{"--format", "v1", "--scheme", "murmur2-seeds", "-n", "10", "-p", "0.01"}, contains: "incompatible"},
		{name: "prime without seeded scheme", args: []string{"--prime", "-n", "10", "-p", "0.01"}, contains: "incompatible"},
		{name: "unknown format", args: []string{"--format", "v3", "-n", "10", "-p", "0.01"}, contains: "must be one of"},
		{name: "exists", args: []string{"-n", "10", "-p", "0.01"}, contains: "file exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := newFilter(t, "1000", "0.01")
			before := readFile(t, path)
			requireFailure(t, runCLI(t, nil, append([]string{"create", path}, tt.args...)...), tt.contains)
			require.Equal(t, before, readFile(t, path), "existing filter changed")
			fresh := filepath.Join(t.TempDir(), "new.bloom")
			if tt.name != "exists" {
				requireFailure(t, runCLI(t, nil, append([]string{"create", fresh}, tt.args...)...), tt.contains)
			}
			entries, err := os.ReadDir(filepath.Dir(fresh))
			require.NoError(t, err)
			require.Empty(t, entries, "file left behind")
		})
	}
}

func TestCreateMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "f.bloom")
	requireFailure(t, runCLI(t, nil, "create", path, "-n", "10", "-p", "0.01"), "no such file or directory")
}

// TestCreateHelpListsSchemes checks that --help names every --scheme value.
func TestCreateHelpListsSchemes(t *testing.T) {
	r := runCLI(t, nil, "create", "--help")
	require.Equal(t, exitOK, r.code)
	help := strings.Join(strings.Fields(r.stdout), " ")
	for name := range schemeIDs {
		assert.Contains(t, help, name)
	}
}

// TestCreateExistOk: create --exist-ok on an existing filter or set opens
// it (the flags given must match it, the message naming both values);
// add creates a missing filter from -n and -p.
func TestCreateExistOk(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f.bloom", "s.bfset"} {
		path := filepath.Join(dir, name)
		args := []string{"create", path, "-n", "1000", "-p", "0.01", "--exist-ok"}
		requireOK(t, runCLI(t, nil, args...))
		requireOK(t, runCLI(t, []byte("a\n"), "add", path))
		requireOK(t, runCLI(t, nil, args...))
		requireOK(t, runCLI(t, nil, "create", path, "--exist-ok"))
		requireFailure(t, runCLI(t, nil, "create", path, "-n", "2000", "--exist-ok"), "n 2000 given, the file has 1000")
		requireFailure(t, runCLI(t, nil, "create", path, "-n", "1000", "-p", "0.01"), "file exists")
		r := runCLI(t, []byte("a\n"), "test", "--bits", path)
		assert.Equal(t, "1\n", r.stdout, "%s kept its key", name)
	}
	path := filepath.Join(dir, "new.bloom")
	requireOK(t, runCLI(t, []byte("a\nb\n"), "add", path, "-n", "1_000", "-p", "0.01"))
	assert.Equal(t, float64(2), infoOf(t, path)["count"])
	assert.Equal(t, float64(1000), infoOf(t, path)["n"])
}

// TestCreateOverDirectory: create (with or without --force) given an
// existing directory whose name is not a set's says it is a directory,
// and leaves it as it was.
func TestCreateOverDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dir.bloom")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for _, force := range [][]string{nil, {"--force"}} {
		args := append([]string{"create", dir, "-n", "10", "-p", "0.01"}, force...)
		requireFailure(t, runCLI(t, nil, args...), "dir.bloom: an existing directory, not a filter file, and not a filter set (whose directory name ends in .bfset)")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "%v: the directory unchanged", force)
	}
}
