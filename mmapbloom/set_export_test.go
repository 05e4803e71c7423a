package mmapbloom

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// filledSet creates a scalable set of n0 = 1000 holding keys "a-0" to
// "a-(keys-1)" (three layers for 5000 keys) and closes it.
func filledSet(t *testing.T, keys int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s.bfset")
	s, err := CreateSet(dir, 1000, 0.01, nil)
	require.NoError(t, err)
	for i := range keys {
		require.NoError(t, s.Add(setKey("a", i)))
	}
	require.NoError(t, s.Close())
	return dir
}

// requireHolds requires the set in dir to hold keys fam-0 to fam-(n-1).
func requireHolds(t *testing.T, dir, fam string, n int) {
	t.Helper()
	s, err := OpenSet(dir, &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer s.Close()
	for i := range n {
		ok, err := s.Test(setKey(fam, i))
		require.NoError(t, err)
		require.True(t, ok, "%s: key %s-%d", dir, fam, i)
	}
}

// TestSetExportWhileAdding: two writers, each with its own handle, add
// keys (and grow the set through several layers) while a third handle
// exports it three times. Every key a writer had added before an Export
// was called is in that copy, and each copy opens, with its generation's
// layers, with the sealed one verifying.
func TestSetExportWhileAdding(t *testing.T) {
	const writers, perWriter, n0 = 2, 20_000, 2000
	dir := filepath.Join(t.TempDir(), "live.bfset")
	s, err := CreateSet(dir, n0, 0.01, nil)
	require.NoError(t, err)
	defer s.Close()
	var done [writers]atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		h, err := OpenSet(dir, nil)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer h.Close()
			fam := string(rune('p' + w))
			for i := range perWriter {
				if err := h.Add(setKey(fam, i)); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				done[w].Store(int64(i + 1))
			}
		}()
	}
	var before [][writers]int
	for e := range 3 {
		for done[0].Load() < int64((e+1)*perWriter/5) && done[0].Load() < perWriter {
			time.Sleep(time.Millisecond)
		}
		var snap [writers]int
		for w := range writers {
			snap[w] = int(done[w].Load())
		}
		before = append(before, snap)
		require.NoError(t, s.Export(filepath.Join(filepath.Dir(dir), "copy"+string(rune('0'+e))+".bfset"), &ExportOptions{Seal: e == 2}))
	}
	wg.Wait()
	for e, snap := range before {
		copyDir := filepath.Join(filepath.Dir(dir), "copy"+string(rune('0'+e))+".bfset")
		for w := range writers {
			requireHolds(t, copyDir, string(rune('p'+w)), snap[w])
		}
		t.Logf("copy %d: keys before export %v", e, snap)
	}
	checks, err := VerifySet(filepath.Join(filepath.Dir(dir), "copy2.bfset"))
	require.NoError(t, err)
	assert.NotEmpty(t, checks)
	for _, c := range checks {
		assert.NotZero(t, c.DataCRC, c.File)
	}
	entries, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, entries, 4, "the set and its three copies, no temporary directory left")
}

// TestSetExportCopy: an export holds the same layers, answers and
// manifest fields as the set; dst must not exist.
func TestSetExportCopy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w.bfset")
	clock := newFakeClock()
	s, err := CreateSet(dir, 100, 0.01, &SetOptions{Window: time.Hour, Keep: 3, Now: clock.now})
	require.NoError(t, err)
	defer s.Close()
	// Keys that test absent, so that each add sets a bit and counts: 50
	// fixed keys made one a false positive, not counted, with probability
	// 2.4e-4 (the layer's m = 1,205, k = 8: the sum over i < 50 of
	// FalsePositiveRate(m, k, i)), and the count 50 instead of 51.
	for range 50 {
		require.NoError(t, s.Add(absentKey(t, s.Test)))
	}
	clock.advance(time.Hour)
	require.NoError(t, s.Add(setKey("b", 0)))
	dst := filepath.Join(t.TempDir(), "w-copy.bfset")
	require.NoError(t, s.Export(dst, nil))
	c, err := OpenSet(dst, &OpenOptions{Now: clock.now})
	require.NoError(t, err)
	defer c.Close()
	want, err := s.Info()
	require.NoError(t, err)
	got, err := c.Info()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	n, err := c.Count()
	require.NoError(t, err)
	assert.Equal(t, uint64(51), n, "this handle's pending counts published before the copy")
	fresh := absentKey(t, c.Test)
	require.NoError(t, c.Add(fresh), "an unsealed copy is an ordinary set")
	ok, err := s.Test(fresh)
	require.NoError(t, err)
	assert.False(t, ok, "the copy is independent of the set")
	require.ErrorIs(t, s.Export(dst, nil), ErrExists)
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Export(dst+"2", nil), ErrClosed)
}

// TestSealSet: a sealed set verifies, opens read-only whatever the
// options, refuses every writing call with ErrSealed naming the set,
// answers as before; UnsealSet makes it writable again.
func TestSealSet(t *testing.T) {
	dir := filledSet(t, 5000)
	require.NoError(t, SealSet(dir))
	require.ErrorIs(t, SealSet(dir), ErrSealed)
	checks, err := VerifySet(dir)
	require.NoError(t, err)
	require.Len(t, checks, 3)
	for _, c := range checks {
		require.NoError(t, c.Err)
	}
	s, err := OpenSet(dir, nil)
	require.NoError(t, err)
	info, err := s.Info()
	require.NoError(t, err)
	assert.True(t, info.Sealed)
	writes := map[string]error{
		"Add":             s.Add([]byte("new")),
		"AddBatch":        s.AddBatch([][]byte{[]byte("new")}),
		"TestAndAdd":      func() error { _, err := s.TestAndAdd([]byte("new")); return err }(),
		"TestAndAddBatch": s.TestAndAddBatch([][]byte{[]byte("new")}, make([]bool, 1)),
		"GC":              func() error { _, err := s.GC(); return err }(),
	}
	for name, err := range writes {
		require.ErrorIs(t, err, ErrSealed, name)
		assert.Contains(t, err.Error(), dir, name)
	}
	requireHolds(t, dir, "a", 5000)
	require.ErrorIs(t, UnsealSet(dir), ErrInUse, "a handle has the set open")
	require.NoError(t, s.Close())

	require.NoError(t, UnsealSet(dir))
	require.NoError(t, UnsealSet(dir), "unsealing an unsealed set does nothing")
	_, err = VerifySet(dir)
	require.ErrorIs(t, err, ErrNotSealed)
	s, err = OpenSet(dir, nil)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Add([]byte("new")))
	info, err = s.Info()
	require.NoError(t, err)
	assert.False(t, info.Sealed)
	assert.Equal(t, uint64(5), info.Generation, "3 layers, then seal and unseal")
}

// TestSealSetWindowed: a sealed windowed set does not rotate, and its
// readers still skip expired windows.
func TestSealSetWindowed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w.bfset")
	clock := newFakeClock()
	s, err := CreateSet(dir, 100, 0.01, &SetOptions{Window: time.Hour, Keep: 2, Now: clock.now})
	require.NoError(t, err)
	require.NoError(t, s.Add([]byte("k")))
	require.NoError(t, s.Close())
	require.NoError(t, SealSet(dir))
	s, err = OpenSet(dir, &OpenOptions{Now: clock.now})
	require.NoError(t, err)
	defer s.Close()
	clock.advance(time.Hour)
	_, err = s.Rotate()
	require.ErrorIs(t, err, ErrSealed)
	require.ErrorIs(t, s.Add([]byte("x")), ErrSealed)
	ok, err := s.Test([]byte("k"))
	require.NoError(t, err)
	assert.True(t, ok, "window 0 is among the 2 kept")
	clock.advance(time.Hour)
	ok, err = s.Test([]byte("k"))
	require.NoError(t, err)
	assert.False(t, ok, "window 0 expired")
}

// TestSealSetAllOrNothing: a layer another handle has open makes
// SealSet fail with ErrInUse before it seals any layer.
func TestSealSetAllOrNothing(t *testing.T) {
	dir := filledSet(t, 5000)
	held, err := Open(filepath.Join(dir, "L000002.bloom"), &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	requireInUse(t, SealSet(dir), "seal set")
	require.NoError(t, held.Close())
	for _, name := range []string{"L000000.bloom", "L000001.bloom", "L000002.bloom"} {
		f, err := Open(filepath.Join(dir, name), &OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		assert.False(t, f.Header().Sealed(), name)
		require.NoError(t, f.Close())
	}
	s, err := OpenSet(dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Add([]byte("new")))
	requireInUse(t, SealSet(dir), "seal an open set")
	require.NoError(t, s.Close())
	require.NoError(t, SealSet(dir))
}

// TestVerifySetDamage: each kind of damage to a sealed set's copy is
// reported on the layer it hit (or for the whole set), as an error,
// never a panic.
func TestVerifySetDamage(t *testing.T) {
	layer := func(dir string) string { return filepath.Join(dir, "L000001.bloom") }
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   error
		layer  int // index of the layer reported, -1 for the whole set
	}{
		{"bit flipped", func(t *testing.T, dir string) {
			patchFile(t, layer(dir), format.HeaderSize+100, []byte{0x5a})
		}, ErrDataChecksum, 1},
		{"truncated", func(t *testing.T, dir string) {
			require.NoError(t, os.Truncate(layer(dir), format.HeaderSize+64))
		}, format.ErrTruncated, 1},
		{"missing", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(layer(dir)))
		}, fs.ErrNotExist, 1},
		{"layer unsealed", func(t *testing.T, dir string) {
			f, err := Open(layer(dir), nil)
			require.NoError(t, err)
			require.NoError(t, f.Unseal())
			require.NoError(t, f.Close())
		}, ErrNotSealed, 1},
		{"other layer's file", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, "L000000.bloom"))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(layer(dir), b, 0o644))
		}, ErrBadSet, 1},
		{"listed twice", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *manifest.Manifest) { m.Layers = append(m.Layers, m.Layers[0]) })
		}, ErrBadSet, 3},
		{"manifest not sealed", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *manifest.Manifest) { m.Sealed = false })
		}, ErrNotSealed, -1},
		{"no manifest", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, manifest.Name)))
		}, ErrBadSet, -1},
		{"bad control", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, manifest.ControlName), []byte("x"), 0o644))
		}, ErrBadSet, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filledSet(t, 5000)
			require.NoError(t, SealSet(dir))
			tc.damage(t, dir)
			checks, err := VerifySet(dir)
			require.ErrorIs(t, err, tc.want)
			if tc.layer < 0 {
				assert.Empty(t, checks)
				return
			}
			for i, c := range checks {
				if i == tc.layer {
					require.ErrorIs(t, c.Err, tc.want)
					assert.Contains(t, c.Err.Error(), c.File)
				} else {
					require.NoError(t, c.Err, c.File)
				}
			}
			assert.Equal(t, errors.Is(err, ErrDataChecksum), tc.want == ErrDataChecksum)
		})
	}
}

// editManifest rewrites dir's MANIFEST through edit.
func editManifest(t *testing.T, dir string, edit func(m *manifest.Manifest)) {
	t.Helper()
	m, err := manifest.Read(dir)
	require.NoError(t, err)
	edit(m)
	require.NoError(t, manifest.Write(dir, m))
}

// TestSealSetAfterCrash: layers sealed by a SealSet that died before it
// wrote the MANIFEST (here: one layer sealed by hand) are kept, and the
// next SealSet finishes the job; UnsealSet unseals a layer left sealed
// in a set whose MANIFEST is not.
func TestSealSetAfterCrash(t *testing.T) {
	dir := filledSet(t, 5000)
	seal := func(name string) {
		f, err := Open(filepath.Join(dir, name), nil)
		require.NoError(t, err)
		require.NoError(t, f.Seal())
		require.NoError(t, f.Close())
	}
	seal("L000001.bloom")
	s, err := OpenSet(dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Add([]byte("to L2")), "the newest layer takes adds")
	require.NoError(t, s.Close())
	require.NoError(t, SealSet(dir))
	checks, err := VerifySet(dir)
	require.NoError(t, err)
	require.Len(t, checks, 3)

	require.NoError(t, UnsealSet(dir))
	seal("L000000.bloom")
	require.NoError(t, UnsealSet(dir))
	f, err := Open(filepath.Join(dir, "L000000.bloom"), &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, f.Header().Sealed())
}
