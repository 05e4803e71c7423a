package main

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// The tests of dedup's at-least-once rule (dedup_*_test.go) feed it
// distinct URLs made from the sample's (testdata/phishing-sample.txt.gz):
// URL j is sample line j mod 50,000 with "#j" appended, so every URL is
// distinct and an output line names its URL's number.

// stressed reports whether the long forms of the tests run
// (MMAPBLOOM_STRESS=1, as the library's tests).
func stressed() bool { return os.Getenv("MMAPBLOOM_STRESS") != "" }

// urlSet makes the distinct URLs 0 to n-1.
type urlSet struct {
	base [][]byte
	n    int
}

// newURLSet returns the first n distinct URLs.
func newURLSet(t *testing.T, n int) urlSet {
	return urlSet{base: testkit.Lines(t, filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz")), n: n}
}

// url appends URL j to dst.
func (u urlSet) url(dst []byte, j int) []byte {
	dst = append(dst, u.base[j%len(u.base)]...)
	dst = append(dst, '#')
	return strconv.AppendInt(dst, int64(j), 10)
}

// write writes the URLs numbered by ids, one per line, to a new file in
// dir and returns its path.
func (u urlSet) write(t *testing.T, dir, name string, ids []int) string {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for _, j := range ids {
		line = append(u.url(line[:0], j), '\n')
		_, err = w.Write(line)
		require.NoError(t, err)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}

// all returns the numbers 0 to n-1.
func (u urlSet) all() []int {
	ids := make([]int, u.n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// printed counts, for every URL, the output lines naming it across the
// output files; other lines (the piece of a line cut by a full disk) are
// counted apart.
type printed struct {
	times []uint8
	other int
}

// readOutputs counts the lines of the output files.
func (u urlSet) readOutputs(t *testing.T, files ...string) printed {
	p := printed{times: make([]uint8, u.n)}
	var want []byte
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			j, err := strconv.Atoi(string(line[bytes.LastIndexByte(line, '#')+1:]))
			if err != nil || j < 0 || j >= u.n || !bytes.Equal(line, u.url(want[:0], j)) {
				p.other++
				continue
			}
			p.times[j]++
		}
		require.NoError(t, sc.Err())
		require.NoError(t, f.Close())
	}
	return p
}

// twice returns the number of URLs printed more than once.
func (p printed) twice() int {
	n := 0
	for _, c := range p.times {
		if c > 1 {
			n++
		}
	}
	return n
}

// requireComplete is the check of every dedup test: each URL of ids
// missing from the outputs must test present in filters built from the
// outputs' URLs alone with the shape (m, k, layout, scheme, seed) of the
// filter, or of each layer of the set, that dedup wrote (so its absence
// is a genuine false positive); it returns the number missing.
func (u urlSet) requireComplete(t *testing.T, store string, ids []int, p printed) (missing int) {
	like := storeHeaders(t, store)
	union := make([][]byte, 0, len(p.times))
	for j, c := range p.times {
		if c > 0 {
			union = append(union, u.url(nil, j))
		}
	}
	probes := make([]*mmapbloom.Filter, len(like))
	for i, h := range like {
		f, err := mmapbloom.CreateLike(filepath.Join(t.TempDir(), "union.bloom"), h, nil)
		require.NoError(t, err)
		require.NoError(t, f.AddBatch(union))
		probes[i] = f
		defer f.Close()
	}
	for _, j := range ids {
		if p.times[j] > 0 {
			continue
		}
		missing++
		key := u.url(nil, j)
		fp := false
		for _, f := range probes {
			ok, err := f.Test(key)
			require.NoError(t, err)
			fp = fp || ok
		}
		require.True(t, fp, "URL %d (%s) missing from the outputs, and not a false positive of the URLs printed: lost", j, key)
	}
	return missing
}

// storeHeaders returns the header of the filter file, or of every layer
// of the set.
func storeHeaders(t *testing.T, path string) []format.Header {
	files := []string{path}
	if isSet(path) {
		var err error
		files, err = filepath.Glob(filepath.Join(path, "L*.bloom"))
		require.NoError(t, err)
	}
	var hs []format.Header
	for _, name := range files {
		f, err := mmapbloom.Open(name, &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		hs = append(hs, f.Header())
		require.NoError(t, f.Close())
	}
	require.NotEmpty(t, hs)
	return hs
}

// shuffled returns ids in a random order of rng.
func shuffled(rng *rand.Rand, ids []int) []int {
	out := append([]int(nil), ids...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// exitOf returns the exit status of a finished command, or minus the
// signal's number when a signal killed it.
func exitOf(t *testing.T, err error, cmd *exec.Cmd) int {
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		require.NoError(t, err)
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
		return -int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}
