//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

func init() {
	testkit.Role("setwriter", roleSetWriter)
	testkit.Role("setcrash", roleSetCrash)
	testkit.Role("setlaggard", roleSetLaggard)
}

// laggardReport is what roleSetLaggard saw after another process dropped
// the layer it had mapped.
type laggardReport struct {
	OldLayerAnswers bool   // the dropped layer, through this process's mapping
	SetAnswers      bool   // the set, on the call after the drop
	Generation      uint64 // of the view that call used
}

// roleSetLaggard opens the windowed set at Path with a clock stopped at
// Seed (Unix ns), checks that it holds key "k", reports ready, and on the
// parent's "probe" (sent after another process dropped that layer) asks
// the layer it still maps, then the set.
func roleSetLaggard(t *testing.T, h *testkit.Helper) {
	a := h.Args
	s, err := mmapbloom.OpenSet(a.Path, &mmapbloom.OpenOptions{Now: func() time.Time { return time.Unix(0, int64(a.Seed)) }})
	require.NoError(t, err)
	defer s.Close()
	ok, err := s.Test([]byte("k"))
	require.NoError(t, err)
	require.True(t, ok)
	_, old := viewLayers(s)
	h.Send(t, "ready")
	cmd, ok := h.Command()
	require.True(t, ok && cmd == "probe", "command %q", cmd)
	var r laggardReport
	r.OldLayerAnswers, err = old[0].Test([]byte("k"))
	require.NoError(t, err)
	r.SetAnswers, err = s.Test([]byte("k"))
	require.NoError(t, err)
	r.Generation, _ = viewLayers(s)
	h.Send(t, r)
	h.WaitStop()
}

// roleSetWriter opens the set at Path, waits for the parent's "go", adds
// its keys [0, Keys) one by one (Mode "add") or in batches (Mode
// "batch"), and reports done.
func roleSetWriter(t *testing.T, h *testkit.Helper) {
	a := h.Args
	s, err := mmapbloom.OpenSet(a.Path, nil)
	require.NoError(t, err)
	defer s.Close()
	h.Send(t, "ready")
	cmd, ok := h.Command()
	require.True(t, ok && cmd == "go", "command %q", cmd)
	for i := uint64(0); i < a.Keys; i += batchSize {
		end := min(i+batchSize, a.Keys)
		if a.Mode == "batch" {
			require.NoError(t, s.AddBatch(testkit.WriterKeys(a.ID, i, end)))
			continue
		}
		for _, key := range testkit.WriterKeys(a.ID, i, end) {
			require.NoError(t, s.Add(key))
		}
	}
	h.Send(t, "done")
	h.WaitStop()
}

// roleSetCrash adds keys to the set at Path until its first growth
// reaches the crash point named by Mode, where it kills itself (kill -9).
func roleSetCrash(t *testing.T, h *testkit.Helper) {
	a := h.Args
	s, err := mmapbloom.OpenSet(a.Path, nil)
	require.NoError(t, err)
	testhooks.SetCrash(func(point string) {
		if point == a.Mode {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})
	for _, key := range testkit.WriterKeys(a.ID, 0, a.Keys) {
		require.NoError(t, s.Add(key))
	}
	t.Fatalf("no crash at %s after %d keys", a.Mode, a.Keys)
}

// TestSetGrowthManyProcesses: eight processes add through the first
// layer's capacity at once, single keys and batches. Exactly one layer is
// added, the generation goes from 1 to 2, and every key added tests
// present.
func TestSetGrowthManyProcesses(t *testing.T) {
	const procs, perProc, n0 = 8, 1000, 4000
	for _, mode := range []string{"add", "batch"} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "grow.bfset")
			s, err := mmapbloom.CreateSet(dir, n0, 0.01, nil)
			require.NoError(t, err)
			defer s.Close()
			ps := make([]*testkit.Proc, procs)
			for i := range ps {
				ps[i] = testkit.StartHelper(t, "setwriter", testkit.HelperArgs{Path: dir, ID: uint32(i), Keys: perProc, Mode: mode})
			}
			var msgs [procs]string
			testkit.RecvEach(t, ps, func(i int) any { return &msgs[i] })
			for _, p := range ps {
				p.Send(t, "go")
			}
			testkit.RecvEach(t, ps, func(i int) any { return &msgs[i] })
			for _, p := range ps {
				p.Finish(t)
			}
			info, err := s.Info()
			require.NoError(t, err)
			assert.Equal(t, uint64(2), info.Generation, "one change")
			assert.Equal(t, uint64(2), testhooks.ControlGeneration(s))
			require.Len(t, info.Layers, 2, "exactly one new layer")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 5, "MANIFEST, CONTROL, LOCK and two layers: %v", entries)
			for id := range uint32(procs) {
				present := make([]bool, perProc)
				keys := testkit.WriterKeys(id, 0, perProc)
				require.NoError(t, s.TestBatch(keys, present))
				for i, ok := range present {
					require.True(t, ok, "process %d key %d missing", id, i)
				}
			}
			st, err := s.Stats()
			require.NoError(t, err)
			t.Logf("layer counts after the race: %d (capacity %d), %d", st[0].Count, st[0].N, st[1].Count)
			// The bound of mmapbloom/set_grow.go: unpublished adds and one batch step
			// per handle.
			assert.LessOrEqual(t, st[0].Count, uint64(n0+procs*2*testhooks.CountBatch))
		})
	}
}

// TestSetCrashDuringGrowth kills a growing process (kill -9) after it
// created the new layer file but before it renamed the MANIFEST, and
// after the rename but before it raised the generation. The next open
// repairs the set, GC removes the orphan layer, no key is lost, and the
// set grows again.
func TestSetCrashDuringGrowth(t *testing.T) {
	const n0 = 100
	tests := []struct {
		point      string
		wantLayers int
		wantGC     []string
	}{
		{"layer-created", 1, []string{manifest.LayerName(1)}},
		{"manifest-renamed", 2, nil},
	}
	for _, tc := range tests {
		t.Run(tc.point, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "crash.bfset")
			s, err := mmapbloom.CreateSet(dir, n0, 0.01, nil)
			require.NoError(t, err)
			defer s.Close() // a handle open across the crash
			p := testkit.StartHelper(t, "setcrash", testkit.HelperArgs{Path: dir, Keys: 10 * n0, Mode: tc.point})
			require.Error(t, p.Wait(), "helper output:\n%s", p.Output())
			assert.Equal(t, uint64(1), testhooks.ControlGeneration(s), "the crash left CONTROL behind")

			r, err := mmapbloom.OpenSet(dir, nil)
			require.NoError(t, err)
			defer r.Close()
			assert.Equal(t, tc.wantLayers, r.Layers())
			info, err := r.Info()
			require.NoError(t, err)
			assert.Equal(t, uint64(tc.wantLayers), info.Generation)
			assert.Equal(t, info.Generation, testhooks.ControlGeneration(r), "open repaired the generation")
			assert.Equal(t, tc.wantLayers, s.Layers(), "the handle open across the crash follows")
			removed, err := r.GC()
			require.NoError(t, err)
			assert.Equal(t, tc.wantGC, removed)
			// The layer filled to its capacity before the crash: its keys
			// were all added.
			for _, key := range testkit.WriterKeys(0, 0, n0) {
				ok, err := r.Test(key)
				require.NoError(t, err)
				require.True(t, ok, "key %q lost", key)
			}
			for _, key := range testkit.WriterKeys(1, 0, 4*n0) {
				require.NoError(t, r.Add(key))
			}
			assert.Greater(t, r.Layers(), tc.wantLayers, "grows again")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 3+r.Layers(), "no orphan: %v", entries)
		})
	}
}

// TestSetLaggardProcess: a process maps a windowed set's only layer;
// another rotates the set, dropping and unlinking that layer. The first
// process's mapping still answers for the dropped layer, and its next
// call on the set moves to the new MANIFEST (the key is gone).
func TestSetLaggardProcess(t *testing.T) {
	now := time.Unix(1_700_000_000, 0) // moved by hand below
	dir := filepath.Join(t.TempDir(), "lag.bfset")
	s, err := mmapbloom.CreateSet(dir, 100, 0.01, &mmapbloom.SetOptions{Window: time.Hour, Keep: 1, Now: func() time.Time { return now }})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Add([]byte("k")))
	p := testkit.StartHelper(t, "setlaggard", testkit.HelperArgs{Path: dir, Seed: uint64(now.UnixNano())})
	var msg string
	p.Recv(t, &msg)
	now = now.Add(time.Hour)
	changed, err := s.Rotate()
	require.NoError(t, err)
	require.True(t, changed)
	_, err = os.Stat(filepath.Join(dir, manifest.LayerName(0)))
	require.ErrorIs(t, err, os.ErrNotExist, "the layer was unlinked")
	p.Send(t, "probe")
	var r laggardReport
	p.Recv(t, &r)
	p.Finish(t)
	assert.True(t, r.OldLayerAnswers, "the dropped layer answers through the laggard's mapping")
	assert.False(t, r.SetAnswers, "the next call uses the new MANIFEST")
	assert.Equal(t, uint64(2), r.Generation)
}
