package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullLine is dedup's one line on stderr when standard output is full.
var fullLine = regexp.MustCompile(`^mmapbloom: standard output: no space left on device; (\d+) lines printed before it; the \d+ claimed and not written are kept in \S+ \(the next dedup on this file prints them\)\n$`)

// TestDedupOutputFull: standard output on a 1 MiB tmpfs that fills
// during a dedup of 100,000 distinct URLs (8 MiB of lines): status 2 and
// one line naming standard output and what became of the lines; after a
// rerun into a working output every URL is printed once across the two
// runs apart from false positives (and the line the full disk cut).
// Needs root to mount the tmpfs: without it the test skips, and fails
// under CI=true.
func TestDedupOutputFull(t *testing.T) {
	bin := binary(t)
	mnt := testkit.SmallFS(t, "1m")
	u := newURLSet(t, 100_000)
	dir := t.TempDir()
	input := u.write(t, dir, "urls.txt", u.all())
	store, out1, out2 := filepath.Join(dir, "seen.bloom"), filepath.Join(mnt, "out1"), filepath.Join(dir, "out2")

	f, err := os.Create(out1)
	require.NoError(t, err)
	cmd := testkit.Command(t, bin, "dedup", store, "-n", "100000", "-p", "0.001", input)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	require.NoError(t, f.Close())
	code := exitOf(t, err, cmd)
	rerunInto(t, bin, out2, "dedup", store, input)
	first := u.readOutputs(t, out1)
	p := u.readOutputs(t, out1, out2)
	missing := u.requireComplete(t, store, u.all(), p)
	assert.Zero(t, p.twice(), "URLs printed by both runs")
	assert.LessOrEqual(t, p.other, 1, "lines that are no URL: at most the one the full disk cut")
	t.Logf("first run printed %d URLs before the disk filled, the rerun %d; %d missing (false positives)", countPrinted(first), countPrinted(p)-countPrinted(first), missing)

	require.Equal(t, exitError, code, stderr.String())
	m := fullLine.FindStringSubmatch(stderr.String())
	require.NotNil(t, m, "stderr: %q", stderr.String())
	n, _ := strconv.Atoi(m[1])
	assert.Equal(t, countPrinted(first), n, "lines printed before the disk filled, as the line says")
}

// TestDedupBrokenPipe: dedup into a pipe whose reader exits after one
// line (| head -1) ends with status 141 (128 + SIGPIPE) and nothing on
// stderr, having closed its filter: the filter is whole and holds no
// more keys than the lines the pipe accepted.
func TestDedupBrokenPipe(t *testing.T) {
	bin := binary(t)
	u := newURLSet(t, 200_000)
	dir := t.TempDir()
	input := u.write(t, dir, "urls.txt", u.all())
	store := filepath.Join(dir, "seen.bloom")
	cmd := testkit.Command(t, bin, "dedup", store, "-n", "200000", "-p", "0.001", input)
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = pw, &stderr
	require.NoError(t, cmd.Start())
	require.NoError(t, pw.Close())
	line := make([]byte, 1)
	var got []byte
	for len(got) == 0 || got[len(got)-1] != '\n' {
		_, err := io.ReadFull(pr, line)
		require.NoError(t, err)
		got = append(got, line[0])
	}
	require.NoError(t, pr.Close())
	err = cmd.Wait()
	assert.Equal(t, 128+int(syscall.SIGPIPE), exitOf(t, err, cmd), stderr.String())
	assert.Empty(t, stderr.String())
	info := infoOf(t, store)
	assert.Less(t, info["count"], float64(200_000), "keys added: at most the lines the pipe took")
}

// TestDedupSync: --sync into a regular file prints what dedup without it
// prints, and goes with a pipe (nothing to sync there).
func TestDedupSync(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte(numbered("k", 10_000)+numbered("k", 10_000)))
	for i, stdout := range []string{"file", "pipe"} {
		store := filepath.Join(dir, fmt.Sprintf("s%d.bloom", i))
		var out []byte
		var err error
		cmd := testkit.Command(t, binary(t), "dedup", "--sync", store, "-n", "100000", "-p", "0.0001", keys)
		if stdout == "file" {
			path := filepath.Join(dir, "out")
			f, ferr := os.Create(path)
			require.NoError(t, ferr)
			cmd.Stdout = f
			err = cmd.Run()
			require.NoError(t, f.Close())
			out = readFile(t, path)
		} else {
			out, err = cmd.Output()
		}
		require.NoError(t, err, stdout)
		assert.Equal(t, numbered("k", 10_000), string(out), stdout)
	}
}
