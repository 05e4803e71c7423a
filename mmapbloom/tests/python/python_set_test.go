//go:build linux

package python

// Python and Go writers on one filter set: a scalable set through growth
// points and a windowed set through rotations, with an injected clock on
// both sides (OpenOptions.Now here, interop.py's NOW_NS argument there).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// pySetKeys writes keys to a file, one a line, and returns its path.
func pySetKeys(t *testing.T, keys []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(keys, "\n")+"\n"), 0o644))
	return path
}

// namedKeys returns count keys prefix-0, prefix-1, ...
func namedKeys(prefix string, count int) []string {
	keys := make([]string, count)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return keys
}

// addBeside adds goKeys to the set at dir from Go while a Python process
// adds pyKeys to it, both at clock now.
func addBeside(t *testing.T, py, dir string, now time.Time, goKeys, pyKeys []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := pyCommand(ctx, py, "set-add", dir, strconv.FormatInt(now.UnixNano(), 10), pySetKeys(t, pyKeys))
	out := new(strings.Builder)
	cmd.Stderr = out
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	s, err := mmapbloom.OpenSet(dir, &mmapbloom.OpenOptions{Now: func() time.Time { return now }})
	require.NoError(t, err)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "python set-add: %s", out)
	require.Equal(t, "opened\n", line)
	_, err = stdin.Write([]byte("go\n")) // both writers start now
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	present := make([]bool, 64)
	for i := 0; i < len(goKeys); i += 64 {
		chunk := toBytes(goKeys[i:min(i+64, len(goKeys))])
		require.NoError(t, s.TestAndAddBatch(chunk, present[:len(chunk)]))
	}
	require.NoError(t, s.Close())
	require.NoError(t, cmd.Wait(), "python set-add: %s", out)
}

// toBytes converts keys to [][]byte.
func toBytes(keys []string) [][]byte {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = []byte(k)
	}
	return out
}

// compareSet requires Python and Go to list the same layers, each sized as
// Go sizes a layer, and to give the same answers for queries at now; it
// returns Go's answers.
func compareSet(t *testing.T, py, dir string, now time.Time, queries []string) []bool {
	t.Helper()
	ns := strconv.FormatInt(now.UnixNano(), 10)
	m, err := manifest.Read(dir)
	require.NoError(t, err)
	var pyLayers []manifest.Layer
	require.NoError(t, json.Unmarshal(runPy(t, py, "set-layers", dir, ns), &pyLayers))
	assert.Equal(t, m.Layers, pyLayers, "the same layers")
	for i, l := range m.Layers {
		f, err := mmapbloom.Open(filepath.Join(dir, l.File), &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		want, err := mmapbloom.Create(filepath.Join(t.TempDir(), "w.bloom"), l.N, l.P, layerOptions(m, l.P))
		require.NoError(t, err)
		got, exp := f.Header(), want.Header()
		assert.Equal(t, []any{exp.M, exp.K, exp.Layout, exp.Scheme}, []any{got.M, got.K, got.Layout, got.Scheme}, "layer %d sized as Go's", i)
		require.NoError(t, errors.Join(f.Close(), want.Close()))
	}
	s, err := mmapbloom.OpenSet(dir, &mmapbloom.OpenOptions{ReadOnly: true, Now: func() time.Time { return now }})
	require.NoError(t, err)
	defer s.Close()
	goAns := make([]bool, len(queries))
	require.NoError(t, s.TestBatch(toBytes(queries), goAns))
	pyAns := strings.TrimSpace(string(runPy(t, py, "set-test", dir, ns, pySetKeys(t, queries))))
	require.Len(t, pyAns, len(queries))
	differ := 0
	for i, a := range goAns {
		if (pyAns[i] == '1') != a {
			differ++
		}
	}
	require.Zero(t, differ, "answers that differ between Python and Go, of %d", len(queries))
	return goAns
}

// absentKeys returns count keys no writer adds.
func absentKeys(count int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, count)
	for i := range keys {
		keys[i] = fmt.Sprintf("random-%d", rng.Uint64())
	}
	return keys
}

// requireFirstPresent requires answers true for the first n queries.
func requireFirstPresent(t *testing.T, answers []bool, n int, what string) {
	t.Helper()
	for i := range n {
		require.True(t, answers[i], "%s: key %d missing", what, i)
	}
}

// TestPythonSetScalable: a Go writer and a Python writer at once on a
// scalable set of 2,000 keys, 8,000 keys in all (two growth points),
// then the same layers and the same answers for 100,000 keys.
func TestPythonSetScalable(t *testing.T) {
	py := python(t)
	dir := filepath.Join(t.TempDir(), "grow.bfset")
	s, err := mmapbloom.CreateSet(dir, 2000, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	now := time.Now()
	goKeys, pyKeys := namedKeys("go", 4000), namedKeys("py", 4000)
	addBeside(t, py, dir, now, goKeys, pyKeys)
	queries := append(append(append([]string{}, goKeys...), pyKeys...), absentKeys(92_000)...)
	ans := compareSet(t, py, dir, now, queries)
	requireFirstPresent(t, ans, 8000, "scalable")
	m, err := manifest.Read(dir)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(m.Layers), 3, "grown through two growth points: %+v", m.Layers)
}

// TestPythonSetWindowed: Python creates a windowed set of 1-hour windows
// keeping 2; a Go writer and a Python writer add at once in three
// successive windows (the clock injected on both sides), so that the set
// rotates twice and drops the first window; the same layers and the same
// answers for 50,000 keys in window 1 and 101,000 at the end.
func TestPythonSetWindowed(t *testing.T) {
	py := python(t)
	dir := filepath.Join(t.TempDir(), "win.bfset")
	t0 := time.Unix(1_800_000_000, 0)
	runPy(t, py, "set-create", dir, "1000", "0.01", "3600", "2", strconv.FormatInt(t0.UnixNano(), 10))
	var win [3][]string
	for w := range 3 {
		now := t0.Add(time.Duration(w)*time.Hour + 30*time.Minute)
		goKeys, pyKeys := namedKeys(fmt.Sprintf("go%d", w), 500), namedKeys(fmt.Sprintf("py%d", w), 500)
		addBeside(t, py, dir, now, goKeys, pyKeys)
		win[w] = append(goKeys, pyKeys...)
		if w == 1 { // windows 0 and 1 live: every key of both present
			queries := append(append(append([]string{}, win[0]...), win[1]...), absentKeys(48_000)...)
			requireFirstPresent(t, compareSet(t, py, dir, now.Add(15*time.Minute), queries), 2000, "windows 0 and 1")
		}
	}
	// Window 0 expired: window 2's keys present; a key of window 1 that a
	// window-0 layer answered present (a false positive there) was not
	// added again, and is forgotten with window 0, as in Go.
	now := t0.Add(2*time.Hour + 45*time.Minute)
	queries := append(append(append([]string{}, win[2]...), win[1]...), absentKeys(98_000)...)
	ans := compareSet(t, py, dir, now, append(queries, win[0]...))
	requireFirstPresent(t, ans, 1000, "window 2")
	m, err := manifest.Read(dir)
	require.NoError(t, err)
	require.Len(t, m.Layers, 2, "window 0 dropped")
	assert.Equal(t, []int64{1, 2}, []int64{m.Layers[0].Window, m.Layers[1].Window})
}
