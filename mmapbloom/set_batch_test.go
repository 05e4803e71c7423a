package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// TestSetBatchHashesMatch is TestBatchHashesMatch for sets: dedup's test,
// then claim, of the new keys of a batch (over three of a set's batch
// chunks), on a set and on an identical copy, under each kernel. On the
// copy TestBatchHashes must answer as TestBatch and set every key's xxh3
// under the set's seed, and TestAndAddBatchHashes with those hashes must
// answer as TestAndAddBatch and leave the same
// layers, byte for byte. Then TestAndAddBatchHashes of fresh keys given
// the hashes of others must add the others' bits where the layers take
// hashes (blocked: the keys are not hashed again) and the keys' own where
// they do not (classic).
func TestSetBatchHashesMatch(t *testing.T) {
	kerneltest.ForEach(t, func(t *testing.T) {
		for _, tc := range []struct {
			layout   format.Layout
			windowed bool
		}{{format.LayoutBlocked512, false}, {format.LayoutBlocked512, true}, {format.LayoutClassic, false}} {
			t.Run(fmt.Sprintf("layout=%v/windowed=%v", tc.layout, tc.windowed), func(t *testing.T) {
				setBatchHashesMatch(t, tc.layout, tc.windowed)
			})
		}
	})
}

// setBatchHashesMatch is one case of TestSetBatchHashesMatch.
func setBatchHashesMatch(t *testing.T, layout format.Layout, windowed bool) {
	s := hashesSet(t, layout, windowed)
	plain, hashed := cloneSet(t, s, &OpenOptions{Now: s.now})
	v, err := hashed.current()
	require.NoError(t, err)
	seed := v.m.Seed
	var keys [][]byte
	for range 3 {
		keys = append(keys, mixedKeys()...)
	}
	want, got := make([]bool, len(keys)), make([]bool, len(keys))
	hashes := make([]uint64, len(keys))
	require.NoError(t, plain.TestBatch(keys, want))
	require.NoError(t, hashed.TestBatchHashes(keys, got, hashes))
	require.Equal(t, want, got, "TestBatch")
	for i, key := range keys {
		require.Equal(t, xxh3.HashSeed(key, seed), hashes[i], "hash of key %d", i)
	}

	var newKeys [][]byte
	var newHashes []uint64
	for i, present := range got {
		if !present {
			newKeys, newHashes = append(newKeys, keys[i]), append(newHashes, hashes[i])
		}
	}
	require.Greater(t, len(newKeys), setChunk, "new keys over more than one chunk")
	want, got = want[:len(newKeys)], got[:len(newKeys)]
	require.NoError(t, plain.TestAndAddBatch(newKeys, want))
	require.NoError(t, hashed.TestAndAddBatchHashes(newKeys, newHashes, got))
	require.Equal(t, want, got, "TestAndAddBatch")
	requireSameLayers(t, plain, hashed)

	fresh, others := keysOf(20, 50), keysOf(21, 50)
	otherHashes := make([]uint64, len(others))
	for i, key := range others {
		otherHashes[i] = xxh3.HashSeed(key, seed)
	}
	require.NoError(t, hashed.TestAndAddBatchHashes(fresh, otherHashes, make([]bool, len(fresh))))
	added := others // the hashes' keys: the keys were not hashed
	if layout == format.LayoutClassic {
		added = fresh // classic layers take no hashes
	}
	present := make([]bool, len(added))
	require.NoError(t, hashed.TestBatch(added, present))
	require.NotContains(t, present, false, "keys whose bits TestAndAddBatchHashes set")
}

// hashesSet returns a set of layout whose layers (n0 = 200, expansion 2)
// hold k-0 .. k-1199: scalable, or windowed with Refresh, 300 keys a
// window.
func hashesSet(t *testing.T, layout format.Layout, windowed bool) *Set {
	t.Helper()
	opts := &SetOptions{Layout: layout}
	clock := newFakeClock()
	if windowed {
		opts.Window, opts.Keep, opts.Refresh, opts.Now = time30s, 4, true, clock.now
	}
	s, err := CreateSet(filepath.Join(t.TempDir(), "hashes.bfset"), 200, 0.01, opts)
	require.NoError(t, err)
	for w := range 4 {
		keys := make([][]byte, 300)
		for i := range keys {
			keys[i] = setKey("k", w*300+i)
		}
		require.NoError(t, s.AddBatch(keys))
		if windowed {
			clock.advance(time30s)
		}
	}
	return s
}

// requireSameLayers checks that a and b list the same layer files with
// the same bits.
func requireSameLayers(t *testing.T, a, b *Set) {
	t.Helper()
	require.NoError(t, a.Sync())
	require.NoError(t, b.Sync())
	va, err := a.current()
	require.NoError(t, err)
	vb, err := b.current()
	require.NoError(t, err)
	require.Equal(t, len(va.m.Layers), len(vb.m.Layers), "layers")
	for i, l := range va.m.Layers {
		x, err := os.ReadFile(filepath.Join(a.Dir(), l.File))
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(b.Dir(), vb.m.Layers[i].File))
		require.NoError(t, err)
		require.Equal(t, x[format.HeaderSize:], y[format.HeaderSize:], "bits of layer %d", i)
	}
}
