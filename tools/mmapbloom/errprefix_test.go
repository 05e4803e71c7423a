package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrorPrefixOnce runs the commands on files and sets they must
// refuse (truncated, foreign, missing, a bad p, a set where a filter
// file is needed, a set whose layer is truncated or missing): each fails
// with one line that names the program once (requireFailure) and says
// why.
func TestErrorPrefixOnce(t *testing.T) {
	bad := badFilters(t)
	dir := t.TempDir()
	set := filepath.Join(dir, "s.bfset")
	requireOK(t, runCLI(t, nil, "create", set, "-n", "1000", "-p", "0.01"))
	requireOK(t, runCLI(t, []byte("a\n"), "add", set))
	truncSet, missSet := filepath.Join(dir, "trunc.bfset"), filepath.Join(dir, "miss.bfset")
	for _, d := range []string{truncSet, missSet} {
		requireOK(t, runCLI(t, nil, "export", set, d))
	}
	require.NoError(t, os.Truncate(layerPath(truncSet, 0), 100))
	require.NoError(t, os.Remove(layerPath(missSet, 0)))
	filter := newFilter(t, "1000", "0.01")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"info", bad["truncated"]}, "file truncated"},
		{[]string{"add", bad["foreign"]}, "not a Bloom filter file"},
		{[]string{"test", bad["missing"]}, "no such file or directory"},
		{[]string{"create", filepath.Join(dir, "x.bloom"), "-n", "10", "-p", "2"}, "p must be a finite number in (0, 1)"},
		{[]string{"create", filepath.Join(dir, "x.bfset"), "-n", "10", "-p", "0"}, "p must be a finite number in (0, 1)"},
		{[]string{"clear", set}, "not a filter set or directory"},
		{[]string{"merge", filter, set}, "not a filter set or directory"},
		{[]string{"create", "--like", set, filepath.Join(dir, "y.bloom")}, "not a filter set or directory"},
		{[]string{"info", truncSet}, "layer L000000.bloom: " + layerPath(truncSet, 0) + ": format: file truncated"},
		{[]string{"add", missSet}, "layer L000000.bloom: open " + layerPath(missSet, 0) + ": no such file or directory"},
		{[]string{"test", truncSet}, "file truncated"},
		{[]string{"seal", missSet}, "no such file or directory"},
		{[]string{"unseal", truncSet}, "file truncated"},
		{[]string{"verify", truncSet}, "verify set " + truncSet + ": filter is not sealed"},
	} {
		requireFailure(t, runCLI(t, []byte("a\n"), tc.args...), tc.want)
	}
}
