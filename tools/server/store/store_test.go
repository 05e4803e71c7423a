package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// newStore returns a store of a new directory with the default limits
// and no background cycle (idle closer, file check, expiry cycle),
// closed at the test's end.
func newStore(t testing.TB) *store.Store {
	t.Helper()
	dir := t.TempDir()
	lim, err := store.NewLimiter(dir, store.Limits{})
	require.NoError(t, err)
	exp, err := store.LoadExpiries(dir, time.Now)
	require.NoError(t, err)
	st := store.New(store.Options{Dir: dir, Sets: lim.Sets(store.LibrarySets{}), Limiter: lim, Expiries: exp, Idle: -1, FileCheck: -1, ExpireCycle: -1})
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

// stem returns key's file-name stem.
func stem(t testing.TB, key string) string {
	t.Helper()
	s, err := keyname.Stem([]byte(key))
	require.NoError(t, err)
	return s
}

// TestStoreKeys: keys reserved, found, listed, refused twice, removed,
// for a fixed filter and a scaling set.
func TestStoreKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   store.Spec
		layers int
	}{
		{"fixed", store.Spec{N: 100, P: 0.01}, 1},
		{"scaling", store.Spec{N: 100, P: 0.01, SetSpec: store.SetSpec{Expansion: 2}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			_, err := st.Acquire(stem(t, "k"), nil)
			require.ErrorIs(t, err, store.ErrNotFound)
			require.NoError(t, st.Reserve([]byte("k"), tc.spec))
			require.ErrorIs(t, st.Reserve([]byte("k"), tc.spec), store.ErrKeyExists)
			ok, err := st.Exists([]byte("k"))
			require.NoError(t, err)
			require.True(t, ok)
			keys, err := st.Keys()
			require.NoError(t, err)
			require.Equal(t, []string{"k"}, keys)

			e, err := st.Acquire(stem(t, "k"), nil)
			require.NoError(t, err)
			require.Equal(t, tc.layers, e.Bloom().Layers())
			_, isSet := e.Bloom().(store.Set)
			require.Equal(t, tc.spec.Expansion != 0, isSet)
			_, err = st.Remove([]byte("k"))
			require.ErrorIs(t, err, mmapbloom.ErrInUse, "in use by a command")
			st.Release(e, false)

			removed, err := st.Remove([]byte("k"))
			require.NoError(t, err)
			require.True(t, removed)
			removed, err = st.Remove([]byte("k"))
			require.NoError(t, err)
			require.False(t, removed)
			require.Zero(t, st.OpenCount())
		})
	}
}

// TestStoreCreateOnAcquire: Acquire with a Spec creates a missing key,
// and a later Acquire without one finds it open.
func TestStoreCreateOnAcquire(t *testing.T) {
	st := newStore(t)
	e, err := st.Acquire(stem(t, "k"), &store.Spec{N: 100, P: 0.01})
	require.NoError(t, err)
	_, err = e.Bloom().TestAndAdd([]byte("a"))
	require.NoError(t, err)
	st.Release(e, false)
	e, err = st.Acquire(stem(t, "k"), nil)
	require.NoError(t, err)
	defer st.Release(e, false)
	present, err := e.Bloom().Test([]byte("a"))
	require.NoError(t, err)
	require.True(t, present)
	require.Equal(t, 1, st.OpenCount())
}

// TestStoreClosed: after Close, every command on the store fails with
// mmapbloom.ErrClosed.
func TestStoreClosed(t *testing.T) {
	st := newStore(t)
	require.NoError(t, st.Reserve([]byte("k"), store.Spec{N: 100, P: 0.01}))
	require.False(t, st.Closed())
	require.NoError(t, st.Close())
	require.True(t, st.Closed())
	_, err := st.Acquire(stem(t, "k"), nil)
	require.ErrorIs(t, err, mmapbloom.ErrClosed)
	require.ErrorIs(t, st.Reserve([]byte("j"), store.Spec{N: 100, P: 0.01}), mmapbloom.ErrClosed)
	_, err = st.Rename([]byte("k"), []byte("j"), false)
	require.ErrorIs(t, err, mmapbloom.ErrClosed)
}

// fakeLoad is a Load that counts its aborts.
type fakeLoad struct {
	aborts int
	idle   bool
}

func (l *fakeLoad) Abort()     { l.aborts++ }
func (l *fakeLoad) Idle() bool { return l.idle }

// TestStoreLoads: a key has at most one load; a new load aborts the
// key's previous one and the idle loads of other keys; Loaded forgets
// only the load it names; a key that exists refuses a load; Close
// aborts the loads left.
func TestStoreLoads(t *testing.T) {
	st := newStore(t)
	start := func(l *fakeLoad) func(file, set string) (store.Load, error) {
		return func(file, set string) (store.Load, error) {
			assert.Equal(t, st.Dir()+"/k.bloom", file)
			assert.Equal(t, st.Dir()+"/k.bfset", set)
			return l, nil
		}
	}
	first, second, idle := &fakeLoad{}, &fakeLoad{}, &fakeLoad{idle: true}
	require.NoError(t, st.StartLoad([]byte("other"), func(string, string) (store.Load, error) { return idle, nil }))
	require.NoError(t, st.StartLoad([]byte("k"), start(first)))
	require.Equal(t, 1, idle.aborts, "an idle load is dropped by a new one")
	require.Nil(t, st.Loading([]byte("other")))
	require.Same(t, first, st.Loading([]byte("k")))

	require.NoError(t, st.StartLoad([]byte("k"), start(second)))
	require.Equal(t, 1, first.aborts, "replaced")
	st.Loaded([]byte("k"), first) // no longer the key's load: kept
	require.Same(t, second, st.Loading([]byte("k")))

	refused := errors.New("refused")
	require.ErrorIs(t, st.StartLoad([]byte("k"), func(string, string) (store.Load, error) { return nil, refused }), refused)
	require.Equal(t, 1, second.aborts, "dropped before the new start")
	require.Nil(t, st.Loading([]byte("k")))

	require.NoError(t, st.Reserve([]byte("k"), store.Spec{N: 100, P: 0.01}))
	require.ErrorIs(t, st.StartLoad([]byte("k"), start(&fakeLoad{})), store.ErrKeyExists)

	last := &fakeLoad{}
	require.NoError(t, st.StartLoad([]byte("j"), func(string, string) (store.Load, error) { return last, nil }))
	require.NoError(t, st.Close())
	require.Equal(t, 1, last.aborts, "aborted by Close")
}

// TestHealthCache checks that a key's sample is kept for HealthMaxAge
// and taken anew after it (an injected time).
func TestHealthCache(t *testing.T) {
	st := newStore(t)
	require.NoError(t, st.Reserve([]byte("k"), store.Spec{N: 1000, P: 0.01}))
	e, err := st.Acquire(stem(t, "k"), nil)
	require.NoError(t, err)
	defer st.Release(e, false)
	require.Nil(t, e.Sample())
	t0 := time.Unix(1_000_000, 0)
	first, err := e.Sampled(t0)
	require.NoError(t, err)
	require.Zero(t, first.Items)
	require.True(t, first.Fresh(t0))
	_, err = e.Bloom().TestAndAdd([]byte("a"))
	require.NoError(t, err)
	again, err := e.Sampled(t0.Add(store.HealthMaxAge - time.Millisecond))
	require.NoError(t, err)
	require.Same(t, first, again, "cached")
	fresh, err := e.Sampled(t0.Add(store.HealthMaxAge))
	require.NoError(t, err)
	require.NotSame(t, first, fresh)
	require.Same(t, fresh, e.Sample())
	require.EqualValues(t, 1, fresh.Items)
}

// BenchmarkAcquireRelease measures a command's use of an open key's
// entry, Store.Acquire and Release (the store lock, and the file
// check's period load and compare), without the filter probe; ns/op is
// per command.
func BenchmarkAcquireRelease(b *testing.B) {
	st := newStore(b)
	require.NoError(b, st.Reserve([]byte("k"), store.Spec{N: 1000, P: 0.01}))
	for b.Loop() {
		e, err := st.Acquire("k", nil)
		if err != nil {
			b.Fatal(err)
		}
		st.Release(e, false)
	}
}

// errSync is the Sync failure of failingSets' sets.
var errSync = errors.New("sync failed")

// failingSets makes library sets whose Sync fails for the set directory
// named fail, counting those Syncs.
type failingSets struct {
	store.LibrarySets
	fail  string
	syncs *int
}

func (f failingSets) Create(dir string, n uint64, p float64, spec store.SetSpec) (store.Bloom, error) {
	b, err := f.LibrarySets.Create(dir, n, p, spec)
	if err != nil || dir != f.fail {
		return b, err
	}
	return failingSync{Bloom: b, syncs: f.syncs}, nil
}

// failingSync is a set whose Sync fails.
type failingSync struct {
	store.Bloom
	syncs *int
}

func (f failingSync) Sync() error { *f.syncs++; return errSync }

// TestSyncOnClose: a filter the store closes by itself (here past the
// descriptor budget) is synced first while SetSyncOnClose is on, and
// the next SyncAll, only that one, reports its failure; off, it is
// closed without a Sync.
func TestSyncOnClose(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[on], func(t *testing.T) {
			dir := t.TempDir()
			syncs := 0
			sets := failingSets{fail: dir + "/a" + keyname.SetSuffix, syncs: &syncs}
			lim, err := store.NewLimiter(dir, store.Limits{FilterFiles: 2}) // one set of one layer
			require.NoError(t, err)
			exp, err := store.LoadExpiries(dir, time.Now)
			require.NoError(t, err)
			st := store.New(store.Options{Dir: dir, Sets: lim.Sets(sets), Limiter: lim, Expiries: exp, Idle: -1, FileCheck: -1, ExpireCycle: -1})
			t.Cleanup(func() { _ = st.Close() })
			st.SetSyncOnClose(on)
			spec := store.Spec{N: 100, P: 0.01, SetSpec: store.SetSpec{Expansion: 2}}
			require.NoError(t, st.Reserve([]byte("a"), spec))
			require.NoError(t, st.Reserve([]byte("b"), spec)) // closes a, unused
			require.Equal(t, 1, st.OpenCount())
			if !on {
				require.Zero(t, syncs)
				require.NoError(t, st.SyncAll())
				return
			}
			require.Equal(t, 1, syncs)
			require.ErrorIs(t, st.SyncAll(), errSync)
			require.NoError(t, st.SyncAll(), "reported once")
		})
	}
}
