package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// interruptedLine is dedup's one line on stderr after SIGINT or SIGTERM.
var interruptedLine = regexp.MustCompile(`^mmapbloom: interrupted by (SIGINT|SIGTERM): read (\d+) lines, printed (\d+) new ones; [^\n]*\n$`)

// TestDedupInterrupted: SIGINT, and kill -9, at random moments of a
// dedup of 300,000 distinct URLs (1,000,000 with MMAPBLOOM_STRESS=1)
// into a new filter of that n, writing into a
// file and into a slow pipe, each followed by a rerun into a second
// file: no URL is lost (requireComplete). SIGINT ends it with status 130
// and one line whose count of printed lines is the first output's. The
// moment is a random share of the output written (not a time, so that a
// loaded machine moves it nowhere): 2 moments per case, 20 with
// MMAPBLOOM_STRESS=1.
func TestDedupInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("300,000 URLs: skipped with -short")
	}
	bin := binary(t)
	n, moments := 300_000, 2
	if stressed() {
		n, moments = 1_000_000, 20
	}
	u := newURLSet(t, n)
	input := u.write(t, t.TempDir(), "urls.txt", u.all())
	st, err := os.Stat(input)
	require.NoError(t, err)
	seed := uint64(time.Now().UnixNano())
	t.Logf("moments from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		for _, pipe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/pipe=%v", sig, pipe), func(t *testing.T) {
				stopped := 0
				for range moments {
					dir := t.TempDir()
					store, out1, out2 := filepath.Join(dir, "seen.bloom"), filepath.Join(dir, "out1"), filepath.Join(dir, "out2")
					at := 1 + rng.Int64N(st.Size()*9/10)
					args := []string{"dedup", store, "-n", strconv.Itoa(n), "-p", "0.001", input}
					code, stderr := interruptAt(t, bin, args, out1, pipe, sig, at)
					first := u.readOutputs(t, out1)
					rerunInto(t, bin, out2, "dedup", store, input)
					p := u.readOutputs(t, out1, out2)
					missing := u.requireComplete(t, store, u.all(), p)
					t.Logf("signal after %d bytes of output: status %d; %d URLs printed by the first run, %d printed again by the rerun (printed but not yet added when it stopped), %d missing (false positives)",
						at, code, countPrinted(first), p.twice(), missing)
					switch {
					case code == 0:
						assert.Empty(t, stderr)
					case sig == syscall.SIGKILL:
						assert.Equal(t, -int(syscall.SIGKILL), code, stderr)
					default:
						requireInterruptedLine(t, code, stderr, first)
					}
					if code != 0 {
						stopped++
					}
				}
				require.Positive(t, stopped, "no moment fell inside a run")
			})
		}
	}
}

// requireInterruptedLine checks status 130 and the one stderr line after
// SIGINT: its count of lines printed is the first output's.
func requireInterruptedLine(t *testing.T, code int, stderr string, first printed) {
	t.Helper()
	require.Equal(t, 128+int(syscall.SIGINT), code, stderr)
	m := interruptedLine.FindStringSubmatch(stderr)
	require.NotNil(t, m, "stderr: %q", stderr)
	read, _ := strconv.Atoi(m[2])
	n, _ := strconv.Atoi(m[3])
	assert.Equal(t, countPrinted(first), n, "lines printed, as the line says")
	assert.LessOrEqual(t, n, read)
	assert.Zero(t, first.other, "a line cut short")
}

// countPrinted returns the number of URLs printed.
func countPrinted(p printed) int {
	n := 0
	for _, c := range p.times {
		n += int(c)
	}
	return n
}

// interruptAt runs bin with args, its standard output into the file out
// (through a slow pipe when pipe is set), sends sig once at bytes were
// written, and returns the exit status (exitOf) and stderr.
func interruptAt(t *testing.T, bin string, args []string, out string, pipe bool, sig syscall.Signal, at int64) (int, string) {
	cmd := testkit.Command(t, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	var written atomic.Int64
	copied := make(chan error, 1)
	if pipe {
		pr, pw, err := os.Pipe()
		require.NoError(t, err)
		cmd.Stdout = pw
		require.NoError(t, cmd.Start())
		require.NoError(t, pw.Close())
		go func() { copied <- slowCopy(f, pr, &written) }()
	} else {
		cmd.Stdout = f
		require.NoError(t, cmd.Start())
		copied <- nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(3 * time.Minute)
	for sent := false; ; {
		select {
		case err := <-done:
			require.NoError(t, <-copied)
			return exitOf(t, err, cmd), stderr.String()
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("dedup still running after 3 minutes")
		case <-time.After(time.Millisecond):
		}
		if !pipe {
			if st, err := f.Stat(); err == nil {
				written.Store(st.Size())
			}
		}
		if !sent && written.Load() >= at {
			require.NoError(t, cmd.Process.Signal(sig))
			sent = true
		}
	}
}

// slowCopy copies r to w 32 KiB at a time with a pause after each, as a
// slow reader of dedup's output does, counting the bytes in written.
func slowCopy(w io.Writer, r *os.File, written *atomic.Int64) error {
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if _, werr := w.Write(buf[:n]); werr != nil {
			return werr
		}
		written.Add(int64(n))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// rerunInto runs bin with args, its standard output into the new file
// out, and requires success.
func rerunInto(t *testing.T, bin, out string, args ...string) {
	t.Helper()
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	cmd := testkit.Command(t, bin, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	require.NoError(t, cmd.Run(), "rerun: %s", stderr.String())
}
