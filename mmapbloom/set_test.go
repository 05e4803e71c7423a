package mmapbloom

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// setKey returns the i-th test key of family fam.
func setKey(fam string, i int) []byte { return fmt.Appendf(nil, "%s-%d", fam, i) }

// fakeClock is an injectable clock that tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestScalableLayerSizing(t *testing.T) {
	tests := []struct {
		s     uint32
		r     float64
		i     int
		wantN uint64
		wantP float64
	}{
		{2, 0.5, 0, 1000, 0.005},
		{2, 0.5, 1, 2000, 0.0025},
		{2, 0.5, 3, 8000, 0.000625},
		{4, 0.9, 0, 1000, 0.001},
		{4, 0.9, 2, 16000, 0.01 * 0.1 * 0.81},
	}
	for _, tc := range tests {
		n, p, err := sizing.ScalableLayer(1000, 0.01, tc.s, tc.r, tc.i)
		require.NoError(t, err)
		assert.Equal(t, tc.wantN, n, "%+v", tc)
		assert.InDelta(t, tc.wantP, p, 1e-15, "%+v", tc)
	}
	sum := 0.0
	for i := range 200 {
		_, p, err := sizing.ScalableLayer(1, 0.01, 1, 0.9, i)
		require.NoError(t, err)
		sum += p
	}
	assert.Less(t, sum, 0.01, "the layers' rates sum below p")
	_, _, err := sizing.ScalableLayer(1<<40, 0.01, 2, 0.5, 30)
	require.ErrorIs(t, err, ErrTooLarge)
	n, p := sizing.WindowLayer(5_000_000, 1e-3, 31)
	assert.Equal(t, uint64(5_000_000), n)
	assert.InDelta(t, 1e-3/31, p, 1e-18)
}

func TestCreateSetOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		n    uint64
		p    float64
		o    *SetOptions
		want error
	}{
		{"zero n", 0, 0.01, nil, ErrInvalidN},
		{"p 1", 10, 1, nil, ErrInvalidP},
		{"tightening 1", 10, 0.01, &SetOptions{Tightening: 1}, ErrBadSet},
		{"keep negative", 10, 0.01, &SetOptions{Window: time.Hour, Keep: -1}, ErrBadSet},
		{"windowed tightening without expansion", 10, 0.01, &SetOptions{Window: time.Hour, Tightening: 0.5}, ErrBadSet},
		{"windowed tightening 1", 10, 0.01, &SetOptions{Window: time.Hour, Expansion: 2, Tightening: 1}, ErrBadSet},
		{"keep above MaxKeep", 10, 0.01, &SetOptions{Window: time.Hour, Keep: MaxKeep + 1}, ErrBadSet},
		{"expansion above MaxExpansion", 10, 0.01, &SetOptions{Expansion: MaxExpansion + 1}, ErrBadSet},
		{"window times keep overflows", 10, 0.01, &SetOptions{Window: 1_000_000 * time.Hour, Keep: 5}, ErrBadSet},
		{"window times default keep overflows", 10, 0.01, &SetOptions{Window: time.Duration(math.MaxInt64/2 + 1)}, ErrBadSet},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CreateSet(filepath.Join(dir, "x.bfset"), tc.n, tc.p, tc.o)
			require.ErrorIs(t, err, tc.want)
			_, err = os.Stat(filepath.Join(dir, "x.bfset"))
			require.ErrorIs(t, err, os.ErrNotExist)
		})
	}
	s, err := CreateSet(filepath.Join(dir, "a.bfset"), 100, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	st, err := os.Stat(filepath.Join(dir, "a.bfset"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(setDirMode), st.Mode().Perm(), "readable by all, as its layer files")
	_, err = CreateSet(filepath.Join(dir, "a.bfset"), 100, 0.01, nil)
	require.ErrorIs(t, err, ErrExists)
	_, err = OpenSet(dir, nil)
	require.ErrorIs(t, err, ErrBadSet)
	file := filepath.Join(t.TempDir(), "a.bloom")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	_, err = OpenSet(file, nil)
	require.ErrorIs(t, err, ErrBadSet)
	assert.Contains(t, err.Error(), "a.bloom: a file, not a filter set directory")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary directory left")
}

func TestScalableSetGrows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seen.bfset")
	s, err := CreateSet(dir, 1000, 0.01, nil)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 1, s.Layers())
	assert.Equal(t, uint32(2), s.Expansion())
	assert.Equal(t, uint64(1000), s.Capacity())
	for i := range 5000 {
		require.NoError(t, s.Add(setKey("a", i)))
	}
	keys := make([][]byte, 3000)
	for i := range keys {
		keys[i] = setKey("b", i)
	}
	require.NoError(t, s.AddBatch(keys))
	// 8000 keys: layers of 1000, 2000, 4000, then 8000.
	assert.Equal(t, 4, s.Layers())
	assert.Equal(t, uint64(15000), s.Capacity())
	info, err := s.Info()
	require.NoError(t, err)
	assert.Equal(t, uint64(4), info.Generation)
	for i, l := range info.Layers {
		assert.InDelta(t, 0.01*0.5/float64(uint(1)<<i), l.P, 1e-15)
		m, _, err := OptimalBlocked(l.N, l.P)
		require.NoError(t, err)
		assert.Equal(t, m, l.M)
	}
	c, err := s.Count()
	require.NoError(t, err)
	// The set's seed is random: the adds that were false positives (no
	// new bit, not counted) numbered 19 to 50, mean 31, in 100 runs; as a
	// Poisson count of mean 1.1 x 31 they exceed 80 with probability
	// about 6e-12 (testkit.PoissonLimit(34, 1e-6) is 65).
	assert.InDelta(t, 8000, float64(c), 80, "count: adds that set a new bit")
	present := make([]bool, len(keys))
	require.NoError(t, s.TestBatch(keys, present))
	for i := range 5000 {
		ok, err := s.Test(setKey("a", i))
		require.NoError(t, err)
		require.True(t, ok, "key a-%d", i)
	}
	for i, ok := range present {
		require.True(t, ok, "key b-%d", i)
		ok, err := s.Test(keys[i]) // hashes each layer's own way
		require.NoError(t, err)
		require.True(t, ok, "key b-%d", i)
	}
	st, err := s.Stats()
	require.NoError(t, err)
	require.Len(t, st, 4)

	// Another handle sees the layers; a key present is not added again.
	o, err := OpenSet(dir, &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer o.Close()
	assert.Equal(t, 4, o.Layers())
	seen, err := s.TestAndAdd(setKey("a", 7))
	require.NoError(t, err)
	assert.True(t, seen)
	fresh := absentKey(t, s.Test)
	seen, err = s.TestAndAdd(fresh)
	require.NoError(t, err)
	assert.False(t, seen)
	ok, err := o.Test(fresh)
	require.NoError(t, err)
	assert.True(t, ok)
	require.ErrorIs(t, o.Add(setKey("x", 1)), ErrReadOnly)
}

func TestSetBatchMatchesSingle(t *testing.T) {
	dir := t.TempDir()
	single, err := CreateSet(filepath.Join(dir, "single.bfset"), 300, 0.01, &SetOptions{Expansion: 4, Tightening: 0.9})
	require.NoError(t, err)
	defer single.Close()
	batch, err := CreateSet(filepath.Join(dir, "batch.bfset"), 300, 0.01, &SetOptions{Expansion: 4, Tightening: 0.9})
	require.NoError(t, err)
	defer batch.Close()
	keys := make([][]byte, 1300)
	for i := range keys {
		keys[i] = setKey("k", i%1000) // repeats within the batch
	}
	got := make([]bool, len(keys))
	require.NoError(t, batch.TestAndAddBatch(keys, got))
	newKeys := 0
	singleNew := 0
	for i, key := range keys {
		seen, err := single.TestAndAdd(key)
		require.NoError(t, err)
		if i >= 1000 {
			require.True(t, got[i], "repeat %d in the batch", i)
			require.True(t, seen, "repeat %d", i)
		}
		if !got[i] {
			newKeys++
		}
		if !seen {
			singleNew++
		}
	}
	// The layers' seeds differ, so their false positives do too: 0 to 2
	// of the 1,000 keys, mean 0.3, in 100 runs; as a Poisson count of
	// mean 0.5 they exceed 10 with probability 8e-12.
	assert.InDelta(t, 1000, newKeys, 10)
	assert.InDelta(t, 1000, singleNew, 10)
	// 300 keys, then about 700 of 1200: both fill the first layer to its
	// capacity (a batch adds no more keys between two count checks than
	// the room left) and add a second.
	assert.Equal(t, 2, single.Layers())
	assert.Equal(t, 2, batch.Layers())
	st, err := batch.Stats()
	require.NoError(t, err)
	assert.LessOrEqual(t, st[0].Count, st[0].N+1, "the batch filled the first layer to its capacity")
	require.ErrorIs(t, batch.TestBatch(keys, got[:1]), ErrBadOptions)
}

func TestWindowedSetExpiry(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("refresh=%v", refresh), func(t *testing.T) {
			clock := newFakeClock()
			const d, keep = time.Hour, 3
			dir := filepath.Join(t.TempDir(), "w.bfset")
			s, err := CreateSet(dir, 1000, 0.01, &SetOptions{Window: d, Keep: keep, Refresh: refresh, Now: clock.now})
			require.NoError(t, err)
			defer s.Close()
			assert.Equal(t, uint32(0), s.Expansion())
			require.NoError(t, s.Add([]byte("old")))
			require.NoError(t, s.Add([]byte("hit")))
			for w := 1; w < keep; w++ {
				clock.advance(d)
				ok, err := s.Test([]byte("old"))
				require.NoError(t, err)
				require.True(t, ok, "forgotten after %d windows, before %d", w, keep)
				// A TestAndAdd hit in each window: refreshes "hit" or not.
				seen, err := s.TestAndAdd([]byte("hit"))
				require.NoError(t, err)
				require.True(t, seen)
			}
			assert.Equal(t, keep, s.Layers())
			clock.advance(d)
			ok, err := s.Test([]byte("old"))
			require.NoError(t, err)
			assert.False(t, ok, "remembered after %d windows", keep)
			ok, err = s.Test([]byte("hit"))
			require.NoError(t, err)
			assert.Equal(t, refresh, ok, "a hit refreshes the key only with Refresh")
			// The expired layer is dropped by the first write.
			require.NoError(t, s.Add([]byte("new")))
			assert.Equal(t, keep, s.Layers())
			info, err := s.Info()
			require.NoError(t, err)
			assert.Equal(t, uint64(keep+1), info.Generation)
			_, err = os.Stat(filepath.Join(dir, manifest.LayerName(0)))
			require.ErrorIs(t, err, os.ErrNotExist, "dropped layer unlinked")
		})
	}
}

func TestWindowedSetRotateSkipsWindows(t *testing.T) {
	clock := newFakeClock()
	dir := filepath.Join(t.TempDir(), "w.bfset")
	s, err := CreateSet(dir, 100, 0.01, &SetOptions{Window: time.Minute, Keep: 4, Now: clock.now})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Add([]byte("a")))
	changed, err := s.Rotate()
	require.NoError(t, err)
	assert.False(t, changed, "window not over")
	clock.advance(10 * time.Minute)
	changed, err = s.Rotate()
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, 1, s.Layers(), "every older window expired")
	clock.advance(-time.Hour)
	changed, err = s.Rotate()
	require.NoError(t, err)
	assert.False(t, changed, "windows never move back")
	ok, err := s.Test([]byte("a"))
	require.NoError(t, err)
	assert.False(t, ok)
}

// TestLaggardKeepsAnswering: a handle whose layer another handle dropped
// (and unlinked) keeps answering from its mapping, then moves to the new
// MANIFEST on its next call.
func TestLaggardKeepsAnswering(t *testing.T) {
	clock := newFakeClock()
	dir := filepath.Join(t.TempDir(), "w.bfset")
	s, err := CreateSet(dir, 100, 0.01, &SetOptions{Window: time.Minute, Keep: 1, Now: clock.now})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Add([]byte("k")))
	lag, err := OpenSet(dir, &OpenOptions{Now: func() time.Time { return clock.now().Add(-time.Minute) }})
	require.NoError(t, err)
	defer lag.Close()
	old := lag.view.Load()

	clock.advance(time.Minute)
	changed, err := s.Rotate()
	require.NoError(t, err)
	require.True(t, changed)
	_, err = os.Stat(filepath.Join(dir, manifest.LayerName(0)))
	require.ErrorIs(t, err, os.ErrNotExist)

	ok, err := old.layers[0].Test([]byte("k"))
	require.NoError(t, err)
	assert.True(t, ok, "the unlinked layer still answers through the laggard's mapping")
	ok, err = lag.Test([]byte("k"))
	require.NoError(t, err)
	assert.False(t, ok, "the next call uses the new MANIFEST")
	assert.NotSame(t, old, lag.view.Load())
	_, err = old.layers[0].Test([]byte("k"))
	require.ErrorIs(t, err, ErrClosed, "the dropped layer was closed")
}

func TestSetClosed(t *testing.T) {
	s, err := CreateSet(filepath.Join(t.TempDir(), "c.bfset"), 100, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, s.Add([]byte("a")))
	require.NoError(t, s.Sync())
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, err = s.Test([]byte("a"))
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, s.Add([]byte("a")), ErrClosed)
	_, err = s.Count()
	require.ErrorIs(t, err, ErrClosed)
	assert.Equal(t, uint64(100), s.Capacity())
	assert.Equal(t, 1, s.Layers())
}

// TestWindowedSetIdle: when no one writes for Keep windows, readers
// forget every key although no rotation dropped the layers.
func TestWindowedSetIdle(t *testing.T) {
	clock := newFakeClock()
	dir := filepath.Join(t.TempDir(), "idle.bfset")
	s, err := CreateSet(dir, 100, 0.01, &SetOptions{Window: time.Hour, Keep: 2, Now: clock.now})
	require.NoError(t, err)
	require.NoError(t, s.Add([]byte("k")))
	require.NoError(t, s.Close())
	r, err := OpenSet(dir, &OpenOptions{ReadOnly: true, Now: clock.now})
	require.NoError(t, err)
	defer r.Close()
	clock.advance(time.Hour)
	ok, err := r.Test([]byte("k"))
	require.NoError(t, err)
	assert.True(t, ok, "one window later")
	clock.advance(time.Hour)
	ok, err = r.Test([]byte("k"))
	require.NoError(t, err)
	assert.False(t, ok, "two windows later")
	assert.Equal(t, 0, r.Layers())
	assert.Equal(t, uint64(0), r.Capacity())
}

// TestSetRefusesForeignLayer replaces a layer of a set with a filter of
// the same n and p that is not its own (another set's layer, a filter
// made apart): opening the set must fail with ErrBadSet naming the layer,
// not answer "absent" for the keys the layer held.
func TestSetRefusesForeignLayer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		foreign func(t *testing.T, dir string) string
	}{
		{"layer of another set", func(t *testing.T, dir string) string {
			other, err := CreateSet(filepath.Join(dir, "other.bfset"), 100, 0.01, nil)
			require.NoError(t, err)
			require.NoError(t, other.Close())
			return filepath.Join(dir, "other.bfset", "L000000.bloom")
		}},
		{"filter made apart", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "apart.bloom")
			f, err := Create(path, 100, 0.005, &CreateOptions{Layout: format.LayoutClassic})
			require.NoError(t, err)
			require.NoError(t, f.Close())
			return path
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			set := filepath.Join(dir, "a.bfset")
			s, err := CreateSet(set, 100, 0.01, nil)
			require.NoError(t, err)
			require.NoError(t, s.Add([]byte("k")))
			require.NoError(t, s.Close())
			layer := filepath.Join(set, "L000000.bloom")
			b, err := os.ReadFile(tc.foreign(t, dir))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(layer, b, 0o644))
			_, err = OpenSet(set, nil)
			require.ErrorIs(t, err, ErrBadSet)
			assert.Contains(t, err.Error(), "layer L000000.bloom")
			require.ErrorIs(t, SealSet(set), ErrBadSet)
		})
	}
}

// A set that adds many layers (expansion 1 at RedisBloom's r = 0.5) goes
// on growing past the layer whose rate p (1-r) r^i would need more than
// format.MaxK hash functions (layer 57 at p = 0.01): later layers are
// sized at sizing.MinLayerP instead of failing every add.
func TestScalableSetGrowsPastRateFloor(t *testing.T) {
	s, err := CreateSet(filepath.Join(t.TempDir(), "flat.bfset"), 10, 0.01, &SetOptions{Expansion: 1})
	require.NoError(t, err)
	defer s.Close()
	added := 0
	for ; s.Layers() < 70 && added < 2000; added++ {
		require.NoError(t, s.Add(setKey("a", added)), "add %d, %d layers", added, s.Layers())
	}
	require.Equal(t, 70, s.Layers())
	info, err := s.Info()
	require.NoError(t, err)
	sum := 0.0
	for i, l := range info.Layers {
		want := max(0.005*math.Pow(0.5, float64(i)), 1e-19) // sizing.MinLayerP
		assert.InDelta(t, want, l.P, want*1e-12, "layer %d", i)
		sum += l.P
	}
	assert.LessOrEqual(t, sum, 0.01+float64(len(info.Layers))*sizing.MinLayerP, "the layers' rates sum to at most p plus the floor of each layer")
	for i := range added {
		ok, err := s.Test(setKey("a", i))
		require.NoError(t, err)
		require.True(t, ok, "key a-%d", i)
	}
	_, p, err := sizing.ScalableLayer(1, 1e-25, 1, 0.5, 3)
	require.NoError(t, err)
	assert.InDelta(t, 0.5e-25, p, 1e-40, "a first layer below the floor: later layers keep its rate")
}

// CONTROL truncated under a live handle (by hand, a bad copy) made the
// next call's generation load die of SIGBUS, taking the process (a
// server with every filter it serves) with it: it is ErrFileChanged, and
// the set's other handles and files are untouched.
func TestSetControlTruncated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c.bfset")
	s, err := CreateSet(dir, 100, 0.01, nil)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Add([]byte("a")))
	require.NoError(t, os.Truncate(filepath.Join(dir, manifest.ControlName), 0))
	_, err = s.Test([]byte("a"))
	require.ErrorIs(t, err, ErrFileChanged)
	require.ErrorIs(t, s.Add([]byte("b")), ErrFileChanged)
	present := make([]bool, 2)
	require.ErrorIs(t, s.TestAndAddBatch([][]byte{[]byte("a"), []byte("c")}, present), ErrFileChanged)
	_, err = s.Count()
	require.ErrorIs(t, err, ErrFileChanged)
	require.NoError(t, s.Close())
	_, err = OpenSet(dir, nil)
	require.ErrorIs(t, err, ErrBadSet, "a CONTROL of 0 bytes is refused at open")
}

// A layer is added by the first new key after the newest layer filled,
// as RedisBloom's SBChain_Add does, not by the add that filled it: a set
// filled to exactly its capacity has one layer (it had two, Capacity 3n,
// and an empty layer file), a key already present does not grow it, and
// the next new key does. Single keys and batches alike.
func TestSetGrowsOnTheNextNewKey(t *testing.T) {
	for _, batch := range []bool{false, true} {
		t.Run(fmt.Sprintf("batch=%v", batch), func(t *testing.T) {
			s, err := CreateSet(filepath.Join(t.TempDir(), "g.bfset"), 100, 0.01, nil)
			require.NoError(t, err)
			defer s.Close()
			var first []byte
			for i := 0; i < 1000; i++ {
				c, err := s.Count()
				require.NoError(t, err)
				if c == 100 {
					break
				}
				key := setKey("a", i)
				if batch {
					require.NoError(t, s.TestAndAddBatch([][]byte{key}, make([]bool, 1)))
				} else {
					_, err = s.TestAndAdd(key)
					require.NoError(t, err)
				}
				if first == nil {
					first = key
				}
			}
			c, err := s.Count()
			require.NoError(t, err)
			require.Equal(t, uint64(100), c)
			assert.Equal(t, 1, s.Layers(), "full, not grown")
			assert.Equal(t, uint64(100), s.Capacity())
			var seen bool
			if batch {
				present := make([]bool, 2)
				require.NoError(t, s.TestAndAddBatch([][]byte{first, first}, present))
				require.NoError(t, s.AddBatch([][]byte{first}))
				seen = present[0] && present[1]
			} else {
				seen, err = s.TestAndAdd(first)
				require.NoError(t, err)
				require.NoError(t, s.Add(first))
			}
			assert.True(t, seen)
			assert.Equal(t, 1, s.Layers(), "a key present does not grow the set")
			fresh := absentKey(t, s.Test)
			if batch {
				present := make([]bool, 1)
				require.NoError(t, s.TestAndAddBatch([][]byte{fresh}, present))
				seen = present[0]
			} else {
				seen, err = s.TestAndAdd(fresh)
				require.NoError(t, err)
			}
			assert.False(t, seen)
			assert.Equal(t, 2, s.Layers(), "the next new key grows it")
			assert.Equal(t, uint64(300), s.Capacity())
			c, err = s.Count()
			require.NoError(t, err)
			assert.Equal(t, uint64(101), c)
			ok, err := s.Test(fresh)
			require.NoError(t, err)
			assert.True(t, ok)
		})
	}
}

// A MANIFEST whose layer list breaks the set's invariants (edited by
// hand, or written by something else) is refused, and its layer files are
// left as they were. A next layer number naming a listed layer: the next
// growth removed that file as a crash's orphan and made an empty layer in
// its place, losing every key of the live layer. A file listed twice
// counted its keys twice. Windows out of order kept an expired window's
// keys answering present.
func TestSetRefusesBadLayerList(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window bool
		edit   func(m *manifest.Manifest)
		want   string
	}{
		{"next names a listed layer", false, func(m *manifest.Manifest) { m.Next = 1 }, "L000001.bloom at or after next 1"},
		{"layer listed twice", false, func(m *manifest.Manifest) { m.Layers[1] = m.Layers[0] }, "L000000.bloom listed twice"},
		{"windows out of order", true, func(m *manifest.Manifest) { m.Layers[0].Window, m.Layers[1].Window = 1, 0 },
			"L000001.bloom of window 0 after window 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "n.bfset")
			clock := newFakeClock()
			o := &SetOptions{Now: clock.now}
			if tc.window {
				o.Window, o.Keep = time.Hour, 3
			}
			s, err := CreateSet(dir, 10, 0.01, o)
			require.NoError(t, err)
			for i := range 30 {
				if i == 15 && tc.window {
					clock.advance(time.Hour)
				}
				require.NoError(t, s.Add(setKey("a", i)))
			}
			require.NoError(t, s.Close())
			editManifest(t, dir, tc.edit)
			_, err = OpenSet(dir, &OpenOptions{Now: clock.now})
			require.ErrorIs(t, err, ErrBadSet)
			assert.ErrorContains(t, err, tc.want)
			for _, name := range []string{"L000000.bloom", "L000001.bloom"} {
				f, err := Open(filepath.Join(dir, name), &OpenOptions{ReadOnly: true})
				require.NoError(t, err, "the layers are untouched")
				require.NoError(t, f.Close())
			}
		})
	}
}

// Adding the same keys again within one window of a windowed set that
// grows does not add them again: a key an older layer of the current
// window holds is in the window already. It was added to the newest
// layer, counted twice and grew the window (300 keys added twice: count
// 600 in 3 layers, for 300 in 2). Single keys, batches, and TestAndAdd
// with Refresh alike; a key of an older window is still re-added.
func TestWindowedSetAddTwiceInWindow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refresh bool
		add     func(s *Set, keys [][]byte) error
	}{
		{"Add", false, func(s *Set, keys [][]byte) error {
			for _, k := range keys {
				if err := s.Add(k); err != nil {
					return err
				}
			}
			return nil
		}},
		{"AddBatch", false, func(s *Set, keys [][]byte) error { return s.AddBatch(keys) }},
		{"TestAndAdd refresh", true, func(s *Set, keys [][]byte) error {
			for _, k := range keys {
				if _, err := s.TestAndAdd(k); err != nil {
					return err
				}
			}
			return nil
		}},
		{"TestAndAddBatch refresh", true, func(s *Set, keys [][]byte) error {
			return s.TestAndAddBatch(keys, make([]bool, len(keys)))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			s, err := CreateSet(filepath.Join(t.TempDir(), "w.bfset"), 100, 0.01,
				&SetOptions{Window: time.Hour, Keep: 2, Expansion: 2, Refresh: tc.refresh, Now: clock.now})
			require.NoError(t, err)
			defer s.Close()
			keys := make([][]byte, 250)
			for i := range keys {
				keys[i] = setKey("k", i)
			}
			require.NoError(t, tc.add(s, keys))
			require.Equal(t, 2, s.Layers(), "100 + 200 keys")
			once, err := s.Count()
			require.NoError(t, err)
			require.NoError(t, tc.add(s, keys))
			again, err := s.Count()
			require.NoError(t, err)
			assert.Equal(t, once, again, "the same keys again in the window")
			assert.Equal(t, 2, s.Layers())

			clock.advance(time.Hour) // the next window: the keys go to it
			require.NoError(t, tc.add(s, keys[:50]))
			info, err := s.Info()
			require.NoError(t, err)
			require.Len(t, info.Layers, 3)
			c, err := s.Count()
			require.NoError(t, err)
			assert.InDelta(t, once+50, c, 2, "re-added to the new window")
		})
	}
}
