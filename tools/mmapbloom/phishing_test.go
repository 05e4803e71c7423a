package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestPhishingURLs runs the command on the 50,000 real phishing URLs of
// testdata/phishing-sample.txt.gz (no duplicates) in a filter at 0.8 of
// its capacity: every added URL tests present, the false-positive rate on
// 1,000,000 URLs never added stays near p, and a second dedup prints
// nothing.
func TestPhishingURLs(t *testing.T) {
	if testing.Short() {
		t.Skip("50,000 URLs and 1,000,000 queries: skipped with -short")
	}
	urls := testkit.Testdata("phishing-sample.txt.gz")
	const total, n, p, absent = 50000, "62500", 0.001, 1_000_000
	start := time.Now()
	dir := t.TempDir()
	path := filepath.Join(dir, "urls.bloom")
	requireOK(t, runCLI(t, nil, "create", path, "-n", n, "-p", fmt.Sprint(p), "--seed", "1"))
	requireOK(t, runCLI(t, nil, "add", path, urls))
	// The count is of URLs that set a clear bit: not the duplicates in the
	// data, nor the rare URL that was a false positive when it was added.
	require.InDelta(t, total, infoOf(t, path)["count"], total*p)

	r := runCLI(t, nil, "test", "--bits", path, urls)
	requireOK(t, r)
	requireEveryLine(t, r.stdout, "1", total, "test --bits on the added URLs (line i is URL i)")

	r = runCLI(t, nil, "test", path, absentURLs(t, dir, absent))
	require.Contains(t, []int{exitOK, exitNoMatch}, r.code, r.stderr)
	fpr := float64(strings.Count(r.stdout, "\n")) / absent
	t.Logf("false-positive rate %.6f (%d of %d URLs never added; p = %g at n = %s, %d keys held)",
		fpr, strings.Count(r.stdout, "\n"), absent, p, n, total)
	require.LessOrEqual(t, fpr, 1.5*p)

	seen := filepath.Join(dir, "seen.bloom")
	first := runCLI(t, nil, "dedup", seen, "-n", n, "-p", fmt.Sprint(p), urls)
	requireOK(t, first)
	require.InDelta(t, total, strings.Count(first.stdout, "\n"), total*p, "new URLs on the first dedup")
	second := runCLI(t, nil, "dedup", seen, urls)
	requireOK(t, second)
	requireEveryLine(t, second.stdout, "", 0, "the second dedup (prints the URLs it had not seen)")
	t.Logf("run time %v", time.Since(start).Round(time.Millisecond))
}

// requireEveryLine checks that out has exactly want lines, each equal to
// line, and reports the line count and the first line that differs: a
// diff of two outputs of megabytes would take longer than the test's
// timeout.
func requireEveryLine(t *testing.T, out, line string, want int, what string) {
	t.Helper()
	got := strings.Count(out, "\n")
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != line && (got > 0 || l != "") {
			t.Fatalf("%s: line %d is %q, want %q (%d lines, want %d)", what, i+1, l, line, got, want)
		}
	}
	require.Equal(t, want, got, "%s: lines", what)
}

// absentURLs writes count URLs that are not in the data set, one per
// line, and returns the file's path.
func absentURLs(t *testing.T, dir string, count int) string {
	t.Helper()
	path := filepath.Join(dir, "absent.txt")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range count {
		fmt.Fprintf(w, "https://absent.example/%d/%016x\n", i, rng.Uint64())
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}
