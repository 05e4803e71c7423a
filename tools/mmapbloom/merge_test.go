package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		sources int
	}{
		{name: "one source", sources: 1},
		{name: "three sources", sources: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := newFilter(t, "1000", "0.001")
			requireOK(t, runCLI(t, []byte(numbered("dst", 100)), "add", dst))
			args := []string{"merge", dst}
			want := numbered("dst", 100)
			for i := range tt.sources {
				src := newFilter(t, "1000", "0.001")
				keys := numbered(string(rune('a'+i)), 100)
				requireOK(t, runCLI(t, []byte(keys), "add", src))
				args, want = append(args, src), want+keys
			}
			requireOK(t, runCLI(t, nil, args...))
			r := runCLI(t, []byte(want), "test", "--bits", dst)
			requireOK(t, r)
			require.Equal(t, strings.Repeat("1\n", 100*(tt.sources+1)), r.stdout)
			require.InDelta(t, float64(100*(tt.sources+1)), infoOf(t, dst)["count"], 2, "the union's cardinality estimate")
		})
	}
}

func TestMergeBadInput(t *testing.T) {
	create := func(t *testing.T, args ...string) string {
		path := filepath.Join(t.TempDir(), "f.bloom")
		requireOK(t, runCLI(t, nil, append([]string{"create", path}, args...)...))
		requireOK(t, runCLI(t, []byte("src\n"), "add", path))
		return path
	}
	tests := []struct {
		name     string
		src      func(t *testing.T, dst string) []string
		contains string
	}{
		{name: "other seed", src: func(t *testing.T, _ string) []string {
			return []string{create(t, "-n", "1000", "-p", "0.01", "--seed", "2")}
		}, contains: "cannot be merged"},
		{name: "other size", src: func(t *testing.T, _ string) []string {
			return []string{create(t, "-n", "2000", "-p", "0.01", "--seed", "1")}
		}, contains: "cannot be merged"},
		{name: "other scheme", src: func(t *testing.T, _ string) []string {
			return []string{create(t, "-n", "1000", "-p", "0.01", "--seed", "1", "--scheme", "murmur2-seeds")}
		}, contains: "cannot be merged"},
		{name: "second source mismatched", src: func(t *testing.T, _ string) []string {
			return []string{newFilter(t, "1000", "0.01"), create(t, "-n", "1000", "-p", "0.01", "--seed", "2")}
		}, contains: "cannot be merged"},
		{name: "itself", src: func(_ *testing.T, dst string) []string { return []string{dst} }, contains: "into itself"},
		{name: "no source", src: func(*testing.T, string) []string { return nil }, contains: "expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := newFilter(t, "1000", "0.01")
			requireOK(t, runCLI(t, []byte("dst\n"), "add", dst))
			before := readFile(t, dst)
			requireFailure(t, runCLI(t, nil, append([]string{"merge", dst}, tt.src(t, dst)...)...), tt.contains)
			require.Equal(t, before, readFile(t, dst), "destination changed")
		})
	}
	for name, bad := range badFilters(t) {
		t.Run("source "+name, func(t *testing.T) {
			dst := newFilter(t, "1000", "0.01")
			before := readFile(t, dst)
			requireFailure(t, runCLI(t, nil, "merge", dst, newFilter(t, "1000", "0.01"), bad), "")
			require.Equal(t, before, readFile(t, dst), "destination changed")
		})
		t.Run("destination "+name, func(t *testing.T) {
			before := readFile(t, bad)
			requireFailure(t, runCLI(t, nil, "merge", bad, newFilter(t, "1000", "0.01")), "")
			require.Equal(t, before, readFile(t, bad))
		})
	}
}

// TestMergeLikeShards is the parallel build: shards made --like a
// template with a random seed merge into it; overlapping shards count
// their union (the cardinality estimate), and a merge past the capacity
// warns as add does.
func TestMergeLikeShards(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "all.bloom")
	requireOK(t, runCLI(t, nil, "create", tmpl, "-n", "1500", "-p", "0.01"))
	a, b := filepath.Join(dir, "a.bloom"), filepath.Join(dir, "b.bloom")
	requireOK(t, runCLI(t, nil, "create", a, "--like", tmpl))
	requireOK(t, runCLI(t, nil, "create", b, "--like", tmpl))
	requireOK(t, runCLI(t, []byte(numbered("k", 1000)), "add", a))
	requireOK(t, runCLI(t, []byte(numbered("k", 1000)+numbered("j", 400)), "add", b))
	requireOK(t, runCLI(t, nil, "merge", tmpl, a, b))
	require.InDelta(t, 1400, infoOf(t, tmpl)["count"], 30, "union of 1,400 keys")
	require.Equal(t, false, infoOf(t, tmpl)["over_capacity"])

	c := filepath.Join(dir, "c.bloom")
	requireOK(t, runCLI(t, nil, "create", c, "--like", tmpl))
	requireOK(t, runCLI(t, []byte(numbered("x", 300)), "add", c))
	r := runCLI(t, nil, "merge", tmpl, c)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "more than its capacity n = 1500")

	requireFailure(t, runCLI(t, nil, "create", filepath.Join(dir, "d.bloom"), "--like", tmpl, "-n", "10"), "can't be used together")
	requireFailure(t, runCLI(t, nil, "create", filepath.Join(dir, "d.bloom"), "--like", tmpl, "--layout", "classic"), "--like takes the whole shape")
}
