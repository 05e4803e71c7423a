package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// filledSetDir creates a scalable set of n0 = 1000 holding key0..key4999:
// three layers (1000, 2000 and 4000 keys).
func filledSetDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "live.bfset")
	requireOK(t, runCLI(t, nil, "create", dir, "-n", "1000", "-p", "0.01"))
	requireOK(t, runCLI(t, []byte(numbered("key", 5000)), "add", dir))
	return dir
}

// TestExportSealedSet is the blocklist shipper's flow: export --seal a
// live set (a handle still has it open), verify the copy, use it
// read-only; add is refused until unseal.
func TestExportSealedSet(t *testing.T) {
	live := filledSetDir(t)
	held, err := mmapbloom.OpenSet(live, nil)
	require.NoError(t, err)
	defer held.Close()
	ship := filepath.Join(t.TempDir(), "ship.bfset")
	requireOK(t, runCLI(t, nil, "export", live, ship, "--seal"))
	requireFailure(t, runCLI(t, nil, "seal", live), "in use")

	r := runCLI(t, nil, "verify", ship)
	requireOK(t, r)
	assert.Equal(t, ship+"/L000000.bloom: intact\n"+ship+"/L000001.bloom: intact\n"+ship+"/L000002.bloom: intact\n"+ship+": intact (3 layers)\n", r.stdout)
	r = runCLI(t, nil, "verify", "--json", ship)
	requireOK(t, r)
	report := decodeJSON(t, r.stdout)
	assert.Equal(t, ship, report["file"])
	assert.Equal(t, true, report["intact"])
	layers := report["layers"].([]any)
	require.Len(t, layers, 3)
	for i, l := range layers {
		l := l.(map[string]any)
		assert.Equal(t, filepath.Base(layerPath(ship, i)), l["file"])
		assert.Equal(t, true, l["intact"])
		assert.Equal(t, infoOf(t, layerPath(ship, i))["data_crc"], l["data_crc"])
		assert.NotContains(t, l, "error")
	}

	info := infoOf(t, ship)
	assert.Equal(t, true, info["sealed"])
	assert.Equal(t, false, infoOf(t, live)["sealed"])
	r = runCLI(t, []byte(numbered("key", 5000)), "test", "-v", ship)
	assert.Equal(t, exitNoMatch, r.code, "every key tests present in the copy: %s", r.stdout)
	requireFailure(t, runCLI(t, []byte("new\n"), "add", ship), ship+": filter is sealed")
	requireFailure(t, runCLI(t, []byte("new\n"), "dedup", ship), "filter is sealed")
	requireFailure(t, runCLI(t, nil, "seal", ship), "sealed")

	requireOK(t, runCLI(t, nil, "unseal", ship))
	requireFailure(t, runCLI(t, nil, "verify", ship), "not sealed")
	requireOK(t, runCLI(t, []byte("new\n"), "add", ship))
	assert.Equal(t, false, infoOf(t, ship)["sealed"])
	requireOK(t, runCLI(t, nil, "seal", ship))
	requireOK(t, runCLI(t, nil, "verify", ship))
}

// layerPath returns the path of layer i of the set dir.
func layerPath(dir string, i int) string {
	return filepath.Join(dir, "L00000"+string(rune('0'+i))+".bloom")
}

// TestExportErrors: export refuses what it cannot copy, with one line.
func TestExportErrors(t *testing.T) {
	live := filledSetDir(t)
	dir := t.TempDir()
	taken := filepath.Join(t.TempDir(), "taken.bfset")
	require.NoError(t, os.Mkdir(taken, 0o755))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"destination exists", []string{live, taken}, "file exists"},
		{"destination without .bfset", []string{live, filepath.Join(dir, "plain")}, "plain: a filter set's directory name ends in .bfset"},
		{"a filter file", []string{newFilter(t, "10", "0.01"), filepath.Join(dir, "x.bfset")}, "export takes a filter set directory (NAME.bfset), not a filter file"},
		{"missing set", []string{filepath.Join(dir, "missing.bfset"), filepath.Join(dir, "y.bfset")}, "not a valid filter set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			requireFailure(t, runCLI(t, nil, append([]string{"export"}, tc.args...)...), tc.want)
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing left behind")
}

// TestVerifySetGolden runs verify on a sealed copy, then after one byte
// of a layer's bit array changed, then after a layer was removed, and
// compares the transcript (exit statuses, stdout, stderr; the directory
// written DIR) with testdata/verify-set.golden (-update rewrites it).
func TestVerifySetGolden(t *testing.T) {
	ship := filepath.Join(t.TempDir(), "ship.bfset")
	requireOK(t, runCLI(t, nil, "export", filledSetDir(t), ship, "--seal"))
	var out strings.Builder
	verify := func(step string) int {
		r := runCLI(t, nil, "verify", ship)
		out.WriteString("# " + step + "\n" + r.stdout + r.stderr)
		out.WriteString("exit " + string(rune('0'+r.code)) + "\n")
		return r.code
	}
	assert.Equal(t, exitOK, verify("sealed copy"))
	flipBit(t, layerPath(ship, 1), format.HeaderSize+100)
	assert.Equal(t, exitNoMatch, verify("one byte of L000001.bloom changed"))
	require.NoError(t, os.Truncate(layerPath(ship, 0), format.HeaderSize+8))
	assert.Equal(t, exitError, verify("L000000.bloom truncated"))
	require.NoError(t, os.Remove(layerPath(ship, 2)))
	assert.Equal(t, exitError, verify("L000002.bloom removed"))
	got := strings.ReplaceAll(out.String(), ship, "DIR")
	assertGolden(t, filepath.Join("testdata", "verify-set.golden"), got)
}

// TestVerifySetJSONDamage: --json names the damaged layer, with the
// exit status of the text output.
func TestVerifySetJSONDamage(t *testing.T) {
	ship := filepath.Join(t.TempDir(), "ship.bfset")
	requireOK(t, runCLI(t, nil, "export", filledSetDir(t), ship, "--seal"))
	flipBit(t, layerPath(ship, 2), format.HeaderSize+7)
	r := runCLI(t, nil, "verify", "--json", ship)
	assert.Equal(t, exitNoMatch, r.code)
	assert.Empty(t, r.stderr)
	report := decodeJSON(t, r.stdout)
	assert.Equal(t, false, report["intact"])
	for i, l := range report["layers"].([]any) {
		l := l.(map[string]any)
		assert.Equal(t, i != 2, l["intact"], l["file"])
		if i == 2 {
			assert.Equal(t, corruptedReason, l["error"], "the text output's words")
		}
	}
	requireFailure(t, runCLI(t, nil, "verify", "--json", filledSetDir(t)), "not sealed")
}
