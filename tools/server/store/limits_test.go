package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// newLimiter returns a Limiter of l on a file system that has free bytes
// available (of 1 TiB).
func newLimiter(t *testing.T, l store.Limits, free uint64) *store.Limiter {
	t.Helper()
	lim, err := store.NewLimiter(t.TempDir(), l)
	require.NoError(t, err)
	lim.Free = func(string) (uint64, uint64, error) { return free, 1 << 40, nil }
	return lim
}

// requireLimit checks that err is a refusal by a limit, local or not,
// whose text contains msg.
func requireLimit(t *testing.T, err error, local bool, msg string) {
	t.Helper()
	var lim *store.LimitError
	require.ErrorAs(t, err, &lim)
	require.ErrorIs(t, err, store.ErrLimit)
	assert.Equal(t, local, lim.Local(), "Local of %q", err)
	assert.Contains(t, err.Error(), msg)
}

// TestLimiterDefaults: the zero Limits take every default; the disk
// reserve is the smaller of 1 GiB and 5% of the file system.
func TestLimiterDefaults(t *testing.T) {
	lim, err := store.NewLimiter(t.TempDir(), store.Limits{})
	require.NoError(t, err)
	_, _, total, err := store.FSBytes(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, store.Limits{MaxFilterBytes: store.DefaultMaxFilterBytes, DiskReserve: min(store.DefaultDiskReserve, total/20),
		MaxLayers: store.DefaultMaxLayers, MaxLoads: store.DefaultMaxLoads, MaxClientLoads: store.DefaultMaxClientLoads,
		FilterFiles: store.DefaultFilterFiles}, lim.Limits)
}

// TestLimiterRefusals: each check refuses past its limit with the
// limit's flag in the text, as a local refusal only where this node's
// state (free disk, loads in progress) decides, and accepts up to it.
func TestLimiterRefusals(t *testing.T) {
	limits := store.Limits{MaxFilterBytes: 1 << 20, DiskReserve: 1 << 20, MaxLayers: 4, MaxLoads: 8, MaxClientLoads: 8}
	hdr := format.Header{ByteSize: 2 << 20}
	for _, tc := range []struct {
		name  string
		check func(l *store.Limiter) error
		local bool
		msg   string // "": accepted
		free  uint64 // bytes available; 0: 2 MiB
	}{
		{"file at the limit", func(l *store.Limiter) error { return l.FileSize(1 << 20) }, false, "", 0},
		{"file past the limit", func(l *store.Limiter) error { return l.FileSize(1<<20 + 1) }, false, "(--max-filter-bytes)", 0},
		{"room past the file limit", func(l *store.Limiter) error { return l.Room(2 << 20) }, false, "(--max-filter-bytes)", 0},
		{"header past the file limit", func(l *store.Limiter) error { return l.Header(hdr) }, false, "(--max-filter-bytes)", 0},
		{"new filter past the file limit", func(l *store.Limiter) error { return l.FileOf(10_000_000, 0.01) }, false, "(--max-filter-bytes)", 0},
		{"new filter too large for the format", func(l *store.Limiter) error { return l.FileOf(1<<62, 1e-300) }, false, "too large for the file format", 0},
		{"layers at the limit", func(l *store.Limiter) error { return l.Layer(4, 1) }, false, "", 0},
		{"layers past the limit", func(l *store.Limiter) error { return l.Layer(5, 1) }, false, "(4 layers, --max-layers)", 0},
		{"layer count past the limit", func(l *store.Limiter) error { return l.LayerCount(5) }, false, "(4 layers, --max-layers)", 0},
		{"disk within the reserve", func(l *store.Limiter) error { return l.DiskRoom(1 << 20) }, false, "", 0},
		{"disk past the reserve", func(l *store.Limiter) error { return l.DiskRoom(1<<20 + 1) }, true, "(--disk-reserve)", 0},
		{"room past the reserve", func(l *store.Limiter) error { return l.Room(1 << 20) }, true, "(--disk-reserve)", 3 << 19},
		{"header past the reserve", func(l *store.Limiter) error { return l.Header(format.Header{ByteSize: 1 << 19}) }, true, "(--disk-reserve)", 3 << 19},
		{"load past the reserve", func(l *store.Limiter) error { return l.StartLoad(1, 1<<20) }, true, "(--disk-reserve)", 3 << 19},
		{"load past the file limit", func(l *store.Limiter) error { return l.StartLoad(1, 1<<20+1) }, false, "(--max-filter-bytes)", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			free := tc.free
			if free == 0 {
				free = 2 << 20
			}
			err := tc.check(newLimiter(t, limits, free))
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			if errors.Is(err, store.ErrLimit) {
				requireLimit(t, err, tc.local, tc.msg)
			} else {
				require.ErrorContains(t, err, tc.msg)
			}
		})
	}
}

// TestLimiterDiskCountsLoads: the bytes promised to loads in progress
// count against the disk's room until the loads end.
func TestLimiterDiskCountsLoads(t *testing.T) {
	lim := newLimiter(t, store.Limits{DiskReserve: 1 << 20}, 4<<20)
	require.NoError(t, lim.StartLoad(1, 2<<20))
	requireLimit(t, lim.StartLoad(2, 2<<20), true, "(2097152 of them promised to loads in progress)")
	requireLimit(t, lim.DiskRoom(1<<20+1), true, "(--disk-reserve)")
	lim.EndLoad(1, 2<<20)
	require.NoError(t, lim.StartLoad(2, 2<<20))
}

// TestLimiterLoads: one client may run MaxClientLoads loads at once
// (a limit of the flags) and all clients MaxLoads (this node's state);
// an ended load frees its place.
func TestLimiterLoads(t *testing.T) {
	lim := newLimiter(t, store.Limits{DiskReserve: 1, MaxLoads: 3, MaxClientLoads: 2}, 1<<40)
	require.NoError(t, lim.AdmitLoad(1, 10))
	require.NoError(t, lim.AdmitLoad(1, 10))
	requireLimit(t, lim.AdmitLoad(1, 10), false, "too many loads in progress by this client (2, --max-client-loads)")
	require.NoError(t, lim.AdmitLoad(2, 10))
	requireLimit(t, lim.AdmitLoad(3, 10), true, "too many loads in progress (3, --max-loads)")
	lim.EndLoad(1, 10)
	require.NoError(t, lim.AdmitLoad(3, 10))
	lim.EndLoad(2, 10)
	require.NoError(t, lim.AdmitLoad(1, 10), "client 1's place, freed")
}

// TestLimiterFreeFails: a file system that cannot be read refuses the
// disk check with its error, not as a limit.
func TestLimiterFreeFails(t *testing.T) {
	lim := newLimiter(t, store.Limits{DiskReserve: 1}, 0)
	broken := errors.New("statfs failed")
	lim.Free = func(string) (uint64, uint64, error) { return 0, 0, broken }
	err := lim.DiskRoom(1)
	require.ErrorIs(t, err, broken)
	require.NotErrorIs(t, err, store.ErrLimit)
}

// otherSets is a Sets backend that is not the library's.
type otherSets struct{ store.Sets }

// TestLimiterSets: the library's sets get the Limiter's layer check
// unless they have one; another backend is left as it is.
func TestLimiterSets(t *testing.T) {
	lim := newLimiter(t, store.Limits{DiskReserve: 1, MaxLayers: 2}, 1<<40)
	ls, ok := lim.Sets(store.LibrarySets{}).(store.LibrarySets)
	require.True(t, ok)
	require.NotNil(t, ls.BeforeLayer)
	requireLimit(t, ls.BeforeLayer(3, 1), false, "(2 layers, --max-layers)")

	own := func(int, uint64) error { return fmt.Errorf("own check") }
	ls, ok = lim.Sets(store.LibrarySets{BeforeLayer: own}).(store.LibrarySets)
	require.True(t, ok)
	require.EqualError(t, ls.BeforeLayer(3, 1), "own check")

	other := otherSets{}
	assert.Equal(t, other, lim.Sets(other))
}
