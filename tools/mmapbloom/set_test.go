package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// keyLines returns n lines "prefix-i".
func keyLines(prefix string, n int) []byte {
	var b strings.Builder
	for i := range n {
		b.WriteString(prefix + "-" + strconv.Itoa(i) + "\n")
	}
	return []byte(b.String())
}

func TestSetCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seen.bfset")
	requireOK(t, runCLI(t, nil, "create", dir, "-n", "1000", "-p", "0.01", "--expansion", "4"))
	requireOK(t, runCLI(t, keyLines("a", 3000), "add", dir))
	info := infoOf(t, dir)
	assert.Equal(t, "scalable", info["kind"])
	assert.Equal(t, float64(4), info["expansion"])
	assert.Equal(t, float64(0.5), info["tightening"])
	layers := info["layers"].([]any)
	require.Len(t, layers, 2, "1000 then 4000 keys")
	assert.Equal(t, float64(5000), info["capacity"])
	assert.InDelta(t, 3000, info["count"], 30)
	assert.Equal(t, "L000001.bloom", layers[1].(map[string]any)["file"])

	r := runCLI(t, keyLines("a", 3000), "test", "-v", dir)
	require.Equal(t, exitNoMatch, r.code, "every key added tests present")
	r = runCLI(t, []byte("a-1\nnever\na-2999\n"), "test", "--bits", dir)
	requireOK(t, r)
	assert.Equal(t, "1\n0\n1\n", r.stdout)

	// Two keys the set answers absent (a new key is a false positive about
	// one time in a hundred here, and the set's seed is random).
	r = runCLI(t, keyLines("new", 20), "test", "-v", dir)
	absent := strings.Fields(r.stdout)
	require.GreaterOrEqual(t, len(absent), 2, r.stderr)
	r = runCLI(t, []byte("a-5\n"+absent[0]+"\n"+absent[0]+"\n"+absent[1]+"\n"), "dedup", dir)
	requireOK(t, r)
	assert.Equal(t, absent[0]+"\n"+absent[1]+"\n", r.stdout)

	text := runCLI(t, nil, "info", dir)
	requireOK(t, text)
	assert.Contains(t, text.stdout, "kind:       scalable")
	assert.Contains(t, text.stdout, "layer L000001.bloom:")
}

func TestSetDedupCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d.bfset")
	r := runCLI(t, []byte("x\ny\nx\n"), "dedup", dir, "-n", "10", "-p", "0.01")
	requireOK(t, r)
	assert.Equal(t, "x\ny\n", r.stdout)
	assert.Equal(t, "scalable", infoOf(t, dir)["kind"])
}

// dedup creating a missing set refuses the shape flags create refuses
// for a set (it made v2 layers of a random seed for --format v1 --seed 7,
// saying nothing), and creates nothing.
func TestSetDedupCreateRefusesFileShape(t *testing.T) {
	for _, flags := range [][]string{{"--format", "v1"}, {"--scheme", "murmur2-seeds"}, {"--seed", "7"}, {"--prime"}} {
		dir := filepath.Join(t.TempDir(), "d.bfset")
		args := append([]string{"dedup", dir, "-n", "10", "-p", "0.01"}, flags...)
		r := runCLI(t, []byte("x\n"), args...)
		requireFailure(t, r, "a filter set takes --layout only")
		assert.Empty(t, r.stdout)
		assert.NoDirExists(t, dir)
	}
	dir := filepath.Join(t.TempDir(), "l.bfset")
	requireOK(t, runCLI(t, []byte("x\n"), "dedup", dir, "-n", "10", "-p", "0.01", "--layout", "classic"))
	assert.Equal(t, "classic", infoOf(t, dir)["layers"].([]any)[0].(map[string]any)["layout"])
}

func TestSetCreateErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"keep without window", []string{"x.bfset", "--keep", "3"}, "keep and refresh are for windowed sets"},
		{"refresh without window", []string{"x.bfset", "--refresh"}, "keep and refresh are for windowed sets"},
		{"seed", []string{"y.bfset", "--seed", "1"}, "takes --layout only"},
		{"tightening above 1", []string{"z.bfset", "--tightening", "1.5"}, "want r in (0, 1)"},
		{"tightening 0", []string{"z.bfset", "--tightening", "0"}, "want r in (0, 1)"},
		{"expansion 0", []string{"z.bfset", "--expansion", "0"}, "--expansion 0"},
		{"tightening with window, no expansion", []string{"z.bfset", "--tightening", "0.9", "--window", "1h"}, "tightening of a windowed set needs an expansion"},
		{"window 1ns", []string{"z.bfset", "--window", "1ns"}, "at least 1s"},
		{"window 0", []string{"z.bfset", "--window", "0s"}, "invalid flag --window 0s: a window lasts 1s or more"},
		{"window negative", []string{"z.bfset", "--window=-1h"}, "invalid flag --window -1h0m0s: a window lasts 1s or more"},
		{"negative keep", []string{"z.bfset", "--window", "1h", "--keep=-1"}, "--keep -1: a windowed set keeps at least 1 window"},
		{"keep 0", []string{"z.bfset", "--window", "1h", "--keep", "0"}, "--keep 0: a windowed set keeps at least 1 window"},
		{"keep 2000", []string{"z.bfset", "--window", "1h", "--keep", "2000"}, "keep 2000 windows: at most 1024"},
		{"expansion 4e9", []string{"z.bfset", "--expansion", "4000000000"}, "expansion 4000000000: at most 32768"},
		{"window times keep", []string{"z.bfset", "--window", "1000000h", "--keep", "5"}, "window 1000000h0m0s times keep 5: beyond"},
		{"set flags, no .bfset", []string{"odd.bloom", "--expansion", "2"}, "--expansion makes a filter set: name it " + filepath.Join(dir, "odd.bfset")},
		{"window, no suffix", []string{"z5", "--window", "1h"}, "--window makes a filter set: name it " + filepath.Join(dir, "z5.bfset")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"create", filepath.Join(dir, tc.args[0]), "-n", "10", "-p", "0.01"}, tc.args[1:]...)
			requireFailure(t, runCLI(t, nil, args...), tc.want)
		})
	}
	requireFailure(t, runCLI(t, nil, "info", filepath.Join(dir, "missing.bfset")), "not a valid filter set")
	// Bad n and p name the set; a p too small to size a layer is refused
	// before a file is made, without naming a temporary directory.
	for _, tc := range []struct{ n, p, want string }{
		{"10", "0", "create set " + filepath.Join(dir, "np.bfset") + ": p = 0"},
		{"0", "0.01", "create set " + filepath.Join(dir, "np.bfset") + ": n must be"},
		{"10", "1e-300", "create set " + filepath.Join(dir, "np.bfset") + ": first layer: sizing for n = 10"},
	} {
		r := runCLI(t, nil, "create", filepath.Join(dir, "np.bfset"), "-n", tc.n, "-p", tc.p)
		requireFailure(t, r, tc.want)
		assert.NotContains(t, r.stderr, ".tmp")
	}
}

// TestSetRotateCommand runs a windowed set of 1-second windows on the
// real clock: after the window ends, rotate drops it and the key is gone.
// (A window that grows, --expansion, rotates the same way: the trial
// found rotate refusing it as if scalable.)
func TestSetRotateCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		p     float64 // of the first layer
	}{{"fixed", nil, 0.01}, {"growing", []string{"--expansion", "2"}, 0.005}} {
		t.Run(tc.name, func(t *testing.T) {
			now := fakeClock(t)
			dir := filepath.Join(t.TempDir(), "w.bfset")
			requireOK(t, runCLI(t, nil, append([]string{"create", dir, "-n", "100", "-p", "0.01", "--window", "1s", "--keep", "1"}, tc.extra...)...))
			info := infoOf(t, dir)
			assert.Equal(t, "windowed", info["kind"])
			assert.Equal(t, "1s", info["window"])
			assert.InDelta(t, tc.p, info["layers"].([]any)[0].(map[string]any)["p"], 1e-12, "p/W with W = 1 (halved when windows grow)")
			requireOK(t, runCLI(t, []byte("old\n"), "add", dir))
			now.Add(int64(1100 * time.Millisecond)) // past the end of the first window
			r := runCLI(t, nil, "rotate", dir)
			requireOK(t, r)
			assert.Equal(t, dir+": rotated, live layers: 1\n", r.stdout)
			_, err := os.Stat(filepath.Join(dir, "L000000.bloom"))
			require.ErrorIs(t, err, os.ErrNotExist, "expired layer unlinked")
			r = runCLI(t, []byte("old\n"), "test", "--bits", dir)
			assert.Equal(t, "0\n", r.stdout)
			assert.Equal(t, float64(2), infoOf(t, dir)["generation"])
		})
	}
}

// fakeClock makes the commands' clock one the test moves (Add, in
// nanoseconds), from the real time now, until the test ends.
func fakeClock(t *testing.T) *atomic.Int64 {
	var ns atomic.Int64
	ns.Store(time.Now().UnixNano())
	clock = func() time.Time { return time.Unix(0, ns.Load()) }
	t.Cleanup(func() { clock = time.Now })
	return &ns
}

func TestSetGCCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g.bfset")
	requireOK(t, runCLI(t, nil, "create", dir, "-n", "100", "-p", "0.01"))
	layer := readFile(t, filepath.Join(dir, "L000000.bloom"))
	writeFile(t, dir, "L000007.bloom", layer)
	writeFile(t, dir, ".L000001.bloom.tmp123", layer)
	writeFile(t, dir, "MANIFEST.tmp.42", []byte("{"))
	writeFile(t, dir, "notes.txt", []byte("kept"))
	r := runCLI(t, nil, "gc", dir)
	requireOK(t, r)
	assert.Equal(t, "removed .L000001.bloom.tmp123\nremoved L000007.bloom\nremoved MANIFEST.tmp.42\n", r.stdout)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"CONTROL", "L000000.bloom", "LOCK", "MANIFEST", "notes.txt"}, names)
	r = runCLI(t, nil, "gc", dir)
	requireOK(t, r)
	assert.Empty(t, r.stdout)
}

// TestSetWindowOverCapacityWarns: add to a windowed set whose window
// receives more keys than n warns, as add to a filter does; a scalable
// set grows instead and does not.
func TestSetWindowOverCapacityWarns(t *testing.T) {
	dir := t.TempDir()
	win, grow, winGrow := filepath.Join(dir, "w.bfset"), filepath.Join(dir, "s.bfset"), filepath.Join(dir, "wg.bfset")
	requireOK(t, runCLI(t, nil, "create", win, "-n", "100", "-p", "0.01", "--window", "1h"))
	requireOK(t, runCLI(t, nil, "create", grow, "-n", "100", "-p", "0.01"))
	requireOK(t, runCLI(t, nil, "create", winGrow, "-n", "100", "-p", "0.01", "--window", "1h", "--expansion", "2"))
	r := runCLI(t, []byte(numbered("k", 1000)), "add", win)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "the current window of "+win+" holds more keys than it was sized for")
	require.Contains(t, r.stderr, "--expansion to let windows grow")
	requireOK(t, runCLI(t, []byte(numbered("k", 1000)), "add", grow))
	requireOK(t, runCLI(t, []byte(numbered("k", 1000)), "add", winGrow))
	r = runCLI(t, nil, "info", winGrow)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `(?m)^layers: +4$`, r.stdout, "a window of 100 keys grown to 100+200+400+800 for 1000")
	assert.Regexp(t, `(?m)^expansion: +2$`, r.stdout)
}

// TestSetGivenToFileCommand: commands that take filter files only say so,
// naming the set, and commands that take sets only say so for a file; a
// scalable set is refused by rotate (it has no windows).
func TestSetGivenToFileCommand(t *testing.T) {
	set := filepath.Join(t.TempDir(), "s.bfset")
	requireOK(t, runCLI(t, nil, "create", set, "-n", "100", "-p", "0.01"))
	file := newFilter(t, "100", "0.01")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"merge into a set", []string{"merge", set, file}, "merge takes a filter file, not a filter set or directory: " + set},
		{"merge from a set", []string{"merge", file, set}, "merge takes a filter file, not a filter set or directory: " + set},
		{"clear a set", []string{"clear", set}, "clear takes a filter file, not a filter set or directory: " + set},
		{"create like a set", []string{"create", file + ".2", "--like", set}, "create --like takes a filter file, not a filter set or directory: " + set},
		{"rotate a file", []string{"rotate", file}, "rotate takes a filter set directory (NAME.bfset), not a filter file: " + file},
		{"gc a file", []string{"gc", file}, "gc takes a filter set directory (NAME.bfset), not a filter file: " + file},
		{"rotate a scalable set", []string{"rotate", set}, "a scalable set has no windows to rotate"},
		{"add to a missing set", []string{"add", set + ".missing.bfset"}, set + ".missing.bfset does not exist: -n and -p are needed to create it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			requireFailure(t, runCLI(t, nil, tc.args...), tc.want)
		})
	}
	assert.Equal(t, float64(1), infoOf(t, set)["generation"], "the set is unchanged")
}

// info --json of a windowed set whose windows all expired (no one wrote
// for Keep windows) lists no layer as [], not null, which a client
// iterating over "layers" fails on.
func TestSetInfoNoLiveLayer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idle.bfset")
	hourAgo := func() time.Time { return time.Now().Add(-time.Hour) }
	s, err := mmapbloom.CreateSet(dir, 10, 0.01, &mmapbloom.SetOptions{Window: time.Second, Keep: 2, Now: hourAgo})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	r := runCLI(t, nil, "info", "--json", dir)
	requireOK(t, r)
	assert.Contains(t, r.stdout, `"layers": []`)
	info := decodeJSON(t, r.stdout)
	assert.Equal(t, []any{}, info["layers"])
	assert.Equal(t, float64(0), info["capacity"])
	r = runCLI(t, nil, "info", dir)
	requireOK(t, r)
	assert.Contains(t, r.stdout, "layers:     0\n")
}

// info gives a window's bounds to the nanosecond: windows start at the
// set's creation time, and bounds cut to the second named a second the
// window does not start on (05:53:42 to 05:53:43 for a window of
// 05:53:42.7 to 05:53:43.7).
func TestSetInfoWindowBounds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w.bfset")
	t0 := time.Now().Truncate(time.Second).Add(700 * time.Millisecond)
	s, err := mmapbloom.CreateSet(dir, 10, 0.01, &mmapbloom.SetOptions{Window: time.Hour, Keep: 2, Now: func() time.Time { return t0 }})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	layer := infoOf(t, dir)["layers"].([]any)[0].(map[string]any)
	start, err := time.Parse(time.RFC3339Nano, layer["window_start"].(string))
	require.NoError(t, err)
	end, err := time.Parse(time.RFC3339Nano, layer["window_end"].(string))
	require.NoError(t, err)
	assert.True(t, t0.Equal(start), "start %v, want %v", start, t0)
	assert.True(t, t0.Add(time.Hour).Equal(end), "end %v", end)
}
