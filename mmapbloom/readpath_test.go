package mmapbloom

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// hammer runs Test and TestBatch over keys (all added) on goroutines
// until stop is closed, and counts the answers: every call must answer
// present without error or fail with ErrClosed; anything else is counted
// in wrong.
type hammer struct {
	wg                    sync.WaitGroup
	answered, closed, bad atomic.Int64
}

func (h *hammer) start(f *Filter, keys [][]byte, goroutines int, stop <-chan struct{}) {
	for g := range goroutines {
		h.wg.Go(func() {
			out := make([]bool, 64)
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var ok bool
				var err error
				if i%2 == 0 {
					ok, err = f.Test(keys[i%len(keys)])
				} else {
					start := (i * 64) % (len(keys) - 64)
					err = f.TestBatch(keys[start:start+64], out)
					ok = allTrue(out)
				}
				h.count(ok, err)
			}
		})
	}
}

func (h *hammer) count(ok bool, err error) {
	switch {
	case err == nil && ok:
		h.answered.Add(1)
	case errors.Is(err, ErrClosed):
		h.closed.Add(1)
	default:
		h.bad.Add(1)
	}
}

func allTrue(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}

// Test and TestBatch take no lock: Close unmaps the file under them.
// Every racing call answers from the file or returns ErrClosed, none
// faults the process or answers wrong, and the file is released at once:
// another handle may take it exclusively while the readers still run.
func TestCloseUnderReaders(t *testing.T) {
	for _, layout := range []format.Layout{format.LayoutBlocked512, format.LayoutClassic} {
		t.Run(layout.String(), func(t *testing.T) {
			f := newTestFilter(t, 20_000, 0.01, &CreateOptions{Layout: layout})
			keys := keysOf(0, 20_000)
			require.NoError(t, f.AddBatch(keys))
			stop := make(chan struct{})
			var h hammer
			h.start(f, keys, 4, stop)
			require.Eventually(t, func() bool { return h.answered.Load() > 1000 }, 10*time.Second, time.Millisecond)
			require.NoError(t, f.Close())
			require.Eventually(t, func() bool { return h.closed.Load() > 1000 }, 10*time.Second, time.Millisecond)

			g, err := Open(f.Path(), nil)
			require.NoError(t, err)
			require.NoError(t, g.Clear(), "the closed handle still holds the file")
			require.NoError(t, g.Close())

			close(stop)
			h.wg.Wait()
			assert.Zero(t, h.bad.Load(), "calls that neither answered present nor returned ErrClosed")
			t.Logf("%d answers, %d ErrClosed", h.answered.Load(), h.closed.Load())
		})
	}
}

// A lock-free read whose operation runs while the handle is closed
// returns ErrClosed, whatever the operation answered: here the operation
// itself closes the handle on another goroutine and waits for Close to
// finish, then answers from the views Close cleared, or answers nothing.
// Deterministic, no sleeps. Under the race detector read takes the lock
// (race_on.go), so Close waits for the read and cannot overlap it.
func TestReadOverlapsClose(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector read takes the lock: Close cannot overlap a read")
	}
	key := []byte("present")
	for _, layout := range []format.Layout{format.LayoutBlocked512, format.LayoutClassic} {
		for _, tc := range []struct {
			name string
			op   func(f *Filter) error
		}{
			{"answer nothing", func(*Filter) error { return nil }},
			{"probe the closed mapping", func(f *Filter) error {
				block, g := f.loc.BlockHash(key)
				f.testKey(key, blockKey{block, g})
				return nil
			}},
		} {
			t.Run(layout.String()+"/"+tc.name, func(t *testing.T) {
				f, err := Create(filepath.Join(t.TempDir(), "f.bloom"), 1000, 0.01, &CreateOptions{Layout: layout})
				require.NoError(t, err)
				require.NoError(t, f.Add(key))
				var closeErr error
				err = f.read(func() error {
					done := make(chan error)
					go func() { done <- f.Close() }()
					closeErr = <-done
					return tc.op(f)
				})
				require.NoError(t, closeErr)
				require.ErrorIs(t, err, ErrClosed)
				_, err = f.Test(key)
				require.ErrorIs(t, err, ErrClosed)
			})
		}
	}
}

// Seal and Unseal rewrite header words that the lock-free read path
// checks on every call: a racing Test must wait for them and answer, not
// take the rewrite for a foreign file.
func TestSealUnderReaders(t *testing.T) {
	f := newTestFilter(t, 20_000, 0.01, nil)
	keys := keysOf(0, 20_000)
	require.NoError(t, f.AddBatch(keys))
	stop := make(chan struct{})
	var h hammer
	h.start(f, keys, 3, stop)
	for range 50 {
		require.NoError(t, f.Seal())
		require.NoError(t, f.Unseal())
	}
	close(stop)
	h.wg.Wait()
	assert.Zero(t, h.bad.Load()+h.closed.Load(), "calls that did not answer present")
	assert.Positive(t, h.answered.Load())
}

// Close unmaps at once, so opening and closing filters does not pile up
// address space (100 opens of a 1.2 MB filter would hold 120 MB; on a
// 32-bit platform a few dozen of a large filter would fill it).
func TestCloseReleasesAddressSpace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads VmSize from /proc/self/status")
	}
	path := newTestFilter(t, 1_000_000, 0.01, nil).Path()
	before := vmSize(t)
	for range 100 {
		g, err := Open(path, nil)
		require.NoError(t, err)
		_, err = g.TestString("x")
		require.NoError(t, err)
		require.NoError(t, g.Close())
	}
	require.Less(t, vmSize(t), before+30<<20, "address space grew by open and close")
}

// vmSize returns the process's virtual memory size in bytes.
func vmSize(t *testing.T) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmSize in /proc/self/status")
	return 0
}
