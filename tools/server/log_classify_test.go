package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Each kind of error a logged write can meet is either the record's
// result on every node (recorded, answered to the origin's client) or
// this node's failure (the stream stops), or a limit of the flags
// (the result where the origin's limits are the same).
func TestClassifyApplyErrors(t *testing.T) {
	lim, err := store.NewLimiter(t.TempDir(), store.Limits{MaxFilterBytes: 1 << 20, DiskReserve: 1 << 20, MaxLayers: 4, MaxLoads: 2, MaxClientLoads: 1})
	require.NoError(t, err)
	lim.Free = func(string) (uint64, uint64, error) { return 1 << 19, 1 << 30, nil }
	require.NoError(t, lim.AdmitLoad(1, 0))
	clientLoads := lim.AdmitLoad(1, 0) // the log's records load as one client
	require.NoError(t, lim.AdmitLoad(2, 0))
	loads := lim.AdmitLoad(3, 0) // local clients' loads count too
	wrap := func(err error) error { return fmt.Errorf("k.bloom: %w", err) }
	for _, tc := range []struct {
		name string
		err  error
		want applyKind
	}{
		{"success", nil, applyResult},
		{"missing key", ErrNotFound, applyResult},
		{"item exists (BF.RESERVE of a key that exists)", ErrKeyExists, applyResult},
		{"key too long for a file name", wrap(ErrBadKey), applyResult},
		{"NONSCALING filter full", errNonScalingFull, applyResult},
		{"bad load data", fmt.Errorf("%w: not a filter header (%w)", errBadData, format.ErrChecksum), applyResult},
		{"chunk offset", errChunkOffset, applyResult},
		{"chunk into a live key", errChunkLiveKey, applyResult},
		{"fixed filter of a folded key", errFoldFixed, applyResult},
		{"folded reserve", wrap(errFoldReserve), applyResult},
		{"bad error rate", wrap(mmapbloom.ErrInvalidP), applyResult},
		{"option differs", wrap(mmapbloom.ErrOptionDiffers), applyResult},
		{"too large for the format", wrap(mmapbloom.ErrTooLarge), applyResult},

		{"--max-filter-bytes", lim.Room(2 << 20), applyLimit},
		{"--max-layers", wrap(lim.Layer(5, 1)), applyLimit},
		{"--max-client-loads", clientLoads, applyLimit},

		{"--disk-reserve", wrap(lim.Room(1 << 10)), applyLocal},
		{"--max-loads (this node's loads in progress)", loads, applyLocal},
		{"disk full", wrap(fmt.Errorf("%w: %w", mmapbloom.ErrNoSpace, unix.ENOSPC)), applyLocal},
		{"I/O error", &os.PathError{Op: "write", Path: "k.bloom", Err: unix.EIO}, applyLocal},
		{"no descriptors", store.ErrNoDescriptors, applyLocal},
		{"EMFILE", &os.PathError{Op: "open", Path: "k.bloom", Err: unix.EMFILE}, applyLocal},
		{"open in another process", wrap(mmapbloom.ErrInUse), applyLocal},
		{"file changed under the mapping", wrap(mmapbloom.ErrFileChanged), applyLocal},
		{"sealed by a local process", wrap(mmapbloom.ErrSealed), applyLocal},
		{"read-only file", wrap(mmapbloom.ErrReadOnly), applyLocal},
		{"closed", wrap(mmapbloom.ErrClosed), applyLocal},
		{"corrupt header on this node", wrap(format.ErrChecksum), applyLocal},
		{"store closing", errApplyClosed, applyLocal},
		{"unknown error", errors.New("something else"), applyLocal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				require.Equal(t, "success", tc.name)
			}
			assert.Equal(t, tc.want, classify(tc.err), "%v", tc.err)
		})
	}
}

// A limit's refusal stops the stream only where the record's origin
// runs with other limits (or they cannot be read).
func TestApplyFailureLimits(t *testing.T) {
	s := &Server{cfg: Config{NodeID: "me", Limits: store.Limits{MaxFilterBytes: 1 << 20, MaxLayers: 4, MaxClientLoads: 4}}}
	mine := s.flagLimits()
	lim, err := store.NewLimiter(t.TempDir(), s.cfg.Limits)
	require.NoError(t, err)
	refused := lim.FileSize(2 << 20)
	require.EqualError(t, refused, "filter of 2097152 bytes is larger than the limit of 1048576 bytes per filter (--max-filter-bytes)")
	peers := map[string]string{"same": mine, "other": "max-filter-bytes=4294967296 max-layers=4 max-client-loads=4"}
	a := newApplier(s, func(_ context.Context, node string) (string, error) {
		if l, ok := peers[node]; ok {
			return l, nil
		}
		return "", errors.New("nats: key not found")
	})
	for _, tc := range []struct {
		name, origin string
		err          error
		stops        string // "" when the error is the record's result
	}{
		{"result", "other", ErrKeyExists, ""},
		{"limit, origin is this node", "me", refused, ""},
		{"limit, origin has the same limits", "same", refused, ""},
		{"limit, origin has other limits", "other", refused, "other, the record's origin, runs with max-filter-bytes=4294967296"},
		{"limit, origin's limits unknown", "gone", refused, "could not be compared"},
		{"local", "me", store.ErrNoDescriptors, "too many open files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := a.failure(tc.origin, tc.err)
			if tc.stops == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
			assert.ErrorContains(t, err, tc.stops)
		})
	}
}

// On a node past --disk-reserve a message's record that creates a key
// fails Apply, after the records before it are applied; the next Apply
// of the message goes on from that record, so the origin's client gets
// each record's first answer (BF.RESERVE's OK, not "item exists"),
// while errors that are results (item exists, a full NONSCALING
// filter, a bad argument) are answered and recorded.
func TestApplyStopsOnNodeFailure(t *testing.T) {
	// A new key's filter (1,000,000 items) takes over 1 MiB; BF.RESERVE
	// of 10 items fits in the 64 KiB over the reserve while "full".
	srv, _ := startServer(t, Config{DefaultCapacity: 1_000_000, Limits: store.Limits{DiskReserve: 1 << 20}})
	var full atomic.Bool
	free := srv.store.Limiter().Free
	srv.store.Limiter().Free = func(dir string) (uint64, uint64, error) {
		if full.Load() {
			return 1<<20 + 64<<10, 1 << 30, nil
		}
		return free(dir)
	}
	a := newApplier(srv, nil)
	cmd := func(args ...string) replication.Record {
		r := replication.Record{Op: replication.OpCommand}
		for _, s := range args {
			r.Fields = append(r.Fields, []byte(s))
		}
		return r
	}
	add := func(key string, items ...string) replication.Record {
		r := cmd(append([]string{key}, items...)...)
		r.Op = replication.OpAdd
		return r
	}
	items := []string{"x"}
	for i := range 20 {
		items = append(items, fmt.Sprintf("y%d", i))
	}
	results := make([]any, 5)
	require.NoError(t, a.Apply(0, 1, "origin", []replication.Record{
		cmd("BF.RESERVE", "fixed", "0.01", "1", "NONSCALING"), add("fixed", items...),
		cmd("BF.RESERVE", "fixed", "0.01", "10"), cmd("BF.RESERVE", "bad", "2", "10"), cmd("DEL", "missing")}, results))
	assert.Equal(t, "+OK\r\n", string(results[0].([]byte)))
	// x fills the filter of 1; each later item is refused as full or,
	// a false positive of the random-seeded filter (2 of 200 runs with one
	// item), answered present: 20 items all false positives has
	// probability below 0.03^20.
	out := results[1].(*addOutcome)
	require.Len(t, out.present, len(items))
	assert.False(t, out.present[0], "x is new")
	refused := 0
	for i := 1; i < len(items); i++ {
		isFull := len(out.full) > i && out.full[i]
		assert.NotEqual(t, out.present[i], isFull, "%s: present, or refused as full", items[i])
		if isFull {
			refused++
		}
	}
	assert.Positive(t, refused, "the items after x refused: the filter is full")
	assert.False(t, len(out.full) > 0 && out.full[0], "x not refused")
	assert.Equal(t, "-ERR item exists\r\n", string(results[2].([]byte)))
	assert.Equal(t, "-ERR error rate must be in the range (0.000000, 1.000000)\r\n", string(results[3].([]byte)))
	assert.Equal(t, ":0\r\n", string(results[4].([]byte)))

	recs := []replication.Record{cmd("BF.RESERVE", "r", "0.01", "10"), add("new", "a"), add("fixed", "x")}
	full.Store(true)
	results = make([]any, 3)
	err := a.Apply(0, 2, "origin", recs, results)
	require.ErrorContains(t, err, "--disk-reserve")
	assert.Equal(t, applyLocal, classify(err))
	assert.EqualValues(t, 1, mustExists(t, srv, "r"), "the record before the failure is applied")
	assert.EqualValues(t, 0, mustExists(t, srv, "new"))
	require.Error(t, a.Apply(0, 2, "origin", recs, make([]any, 3)), "still full")

	full.Store(false)
	results = make([]any, 3)
	require.NoError(t, a.Apply(0, 2, "origin", recs, results))
	assert.Equal(t, "+OK\r\n", string(results[0].([]byte)), "BF.RESERVE answered once, from its first run")
	assert.Equal(t, []bool{false}, results[1].(*addOutcome).present)
	assert.NoError(t, results[1].(*addOutcome).err)
	assert.Equal(t, []bool{true}, results[2].(*addOutcome).present)
	assert.EqualValues(t, 1, mustExists(t, srv, "new"))
}

// mustExists is EXISTS key on srv, run as the log's records are.
func mustExists(t *testing.T, srv *Server, key string) int64 {
	t.Helper()
	rdb := dial(t, srv.Addr().String(), "")
	n, err := rdb.Exists(ctx(t), key).Result()
	require.NoError(t, err)
	return n
}
