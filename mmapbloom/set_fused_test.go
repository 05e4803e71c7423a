package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// fusedSet creates a set of 4 blocked layers (n0 = 200, expansion 2) at
// p holding keys k-0 .. k-2799, for each kind: scalable, and windowed with
// Refresh (its Add and TestAndAdd add to the newest layer always).
func fusedSet(t *testing.T, dir string, p float64, windowed bool) *Set {
	t.Helper()
	opts := &SetOptions{Layout: format.LayoutBlocked512}
	clock := newFakeClock()
	if windowed {
		opts.Window, opts.Keep, opts.Refresh, opts.Now = time30s, 4, true, clock.now
	}
	s, err := CreateSet(filepath.Join(dir, "fused.bfset"), 200, p, opts)
	require.NoError(t, err)
	for i := range 2800 {
		require.NoError(t, s.Add(setKey("k", i)))
		if windowed && i%700 == 699 && i < 2799 {
			clock.advance(time30s)
		}
	}
	require.Equal(t, 4, s.Layers())
	return s
}

// time30s is the window of fusedSet's windowed set.
const time30s = 30 * time.Second

// cloneSet copies the directory of s (closed first) twice and opens both
// copies: two sets with the same seed, layers and bits.
func cloneSet(t *testing.T, s *Set, opts *OpenOptions) (a, b *Set) {
	t.Helper()
	require.NoError(t, s.Close())
	open := func(name string) *Set {
		dir := filepath.Join(filepath.Dir(s.Dir()), name)
		require.NoError(t, os.CopyFS(dir, os.DirFS(s.Dir())))
		c, err := OpenSet(dir, opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	return open("a.bfset"), open("b.bfset")
}

// mixedKeys returns a chunk (setChunk keys at most) of present keys from
// every layer, absent ones and repeats, interleaved.
func mixedKeys() [][]byte {
	var keys [][]byte
	for i := range setChunk / 3 {
		keys = append(keys, setKey("k", i*33), setKey("new", i), setKey("new", i/2))
	}
	return keys
}

// TestFusedMatchesLayers runs every batch call of a 4-layer set on the
// fused pipeline and, on an identical copy of the set, one layer at a
// time (insertLayers, testLayers), under each kernel: the answers must be
// equal key for key, and the layer files byte for byte afterwards. At
// p = 0.01 every layer has k <= 16 (the multi-layer kernel's lanes); at
// 2e-5 the newest layers have more and the fused path tests layer by
// layer.
func TestFusedMatchesLayers(t *testing.T) {
	kerneltest.ForEach(t, func(t *testing.T) {
		for _, tc := range []struct {
			p     float64
			lanes bool
		}{{0.01, true}, {2e-5, false}} {
			for _, windowed := range []bool{false, true} {
				for _, add := range []bool{false, true} {
					t.Run(fmt.Sprintf("p=%v/windowed=%v/add=%v", tc.p, windowed, add), func(t *testing.T) {
						fusedMatchesLayers(t, tc.p, tc.lanes, windowed, add)
					})
				}
			}
		}
	})
}

// fusedMatchesLayers is one case of TestFusedMatchesLayers.
func fusedMatchesLayers(t *testing.T, p float64, lanes, windowed, add bool) {
	s := fusedSet(t, t.TempDir(), p, windowed)
	fused, layered := cloneSet(t, s, &OpenOptions{Now: s.now})
	keys := mixedKeys()
	want, got := make([]bool, len(keys)), make([]bool, len(keys))

	fv, err := fused.current()
	require.NoError(t, err)
	lv, err := layered.current()
	require.NoError(t, err)
	require.True(t, fusable(fv.live(s.now), fv.m.Seed))
	pipe := startFused(fv.layers, fv.m.Seed, nil, keyHashes{})
	require.Equal(t, lanes, pipe.lanes, "k of the layers within kernel.MaxLaneK")
	pipe.put()
	require.NoError(t, testFused(fv.live(s.now), fv.m.Seed, keys, keyHashes{}, got))
	require.NoError(t, getPending(lv.m.Seed, keyHashes{}).testLayers(lv.live(s.now), keys, want))
	require.Equal(t, want, got, "TestBatch")

	always := fv.addsAlways(add)
	older, active := lv.split(s.now)
	wantAdded, err := insertLayers(lv.held(older, always), older, active, lv.m.Seed, keys, keyHashes{}, want, always, add)
	require.NoError(t, err)
	gotAdded, err := insertFused(fv.layers[len(fv.layers)-1-len(older):], fv.m.Seed, keys, keyHashes{}, got, always, add)
	require.NoError(t, err)
	assert.Equal(t, wantAdded, gotAdded, "keys that set a clear bit")
	assert.Positive(t, gotAdded)
	if !add {
		require.Equal(t, want, got, "TestAndAddBatch")
	}
	require.NoError(t, fused.Sync())
	require.NoError(t, layered.Sync())
	for _, l := range fv.m.Layers {
		a, err := os.ReadFile(filepath.Join(fused.Dir(), l.File))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(layered.Dir(), l.File))
		require.NoError(t, err)
		require.Equal(t, b[format.HeaderSize:], a[format.HeaderSize:], "bits of %s", l.File)
	}
}

// fakeFault is a panic value shaped like the runtime's memory fault.
type fakeFault uintptr

func (f fakeFault) Addr() uintptr { return uintptr(f) }

// TestGuardLayersBlame requires a fault inside guardLayers' op to be
// blamed on the layer whose mapping it hit, whatever its place in the
// nesting, and other panics to go on.
func TestGuardLayersBlame(t *testing.T) {
	s := fusedSet(t, t.TempDir(), 0.01, false)
	defer s.Close()
	v, err := s.current()
	require.NoError(t, err)
	for i, f := range v.layers {
		for _, write := range []bool{false, true} {
			addr := reflect.ValueOf(f.data).Pointer() + 100
			err := guardLayers(v.layers, write, func() error { panic(fakeFault(addr)) })
			require.ErrorIs(t, err, ErrNoSpace, "layer %d: the file is whole, so the fault is the file system's", i)
			assert.Contains(t, err.Error(), f.Path())
		}
	}
	assert.PanicsWithValue(t, "boom", func() {
		_ = guardLayers(v.layers, true, func() error { panic("boom") })
	})
	require.NoError(t, os.Truncate(v.layers[1].Path(), 0))
	ok := make([]bool, 3)
	err = s.TestBatch([][]byte{setKey("k", 1), setKey("k", 2), setKey("x", 3)}, ok)
	require.ErrorIs(t, err, ErrFileChanged)
	assert.Contains(t, err.Error(), v.layers[1].Path())
	for i, f := range v.layers {
		assert.Equal(t, i == 1, f.broken.Load(), "layer %d broken", i)
	}
}
