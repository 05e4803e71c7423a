package server

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit/powercut"
)

// TestAppendfsyncConfig: Config.AppendFsync and CONFIG SET appendfsync
// take Redis's three values (any case), CONFIG GET appendonly answers
// yes unless no, and INFO persistence's aof_enabled follows.
func TestAppendfsyncConfig(t *testing.T) {
	_, err := New(Config{Dir: t.TempDir(), AppendFsync: "sometimes"})
	require.ErrorIs(t, err, ErrBadConfig)

	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, tc := range []struct{ set, want, appendonly, aofEnabled string }{
		{"", DefaultAppendFsync, "yes", "1"},
		{"ALWAYS", "always", "yes", "1"},
		{"no", "no", "no", "0"},
		{"everysec", "everysec", "yes", "1"},
	} {
		if tc.set != "" {
			require.NoError(t, rdb.ConfigSet(c, "appendfsync", tc.set).Err())
		}
		assert.Equal(t, map[string]string{"appendfsync": tc.want}, rdb.ConfigGet(c, "appendfsync").Val(), tc.set)
		assert.Equal(t, map[string]string{"appendonly": tc.appendonly}, rdb.ConfigGet(c, "appendonly").Val(), tc.set)
		fields, _ := parseInfo(t, rdb.Info(c, "persistence").Val())
		assert.Equal(t, tc.aofEnabled, fields["aof_enabled"], tc.set)
		assert.Equal(t, "ok", fields["aof_last_write_status"], tc.set)
	}
	assert.ErrorContains(t, rdb.ConfigSet(c, "appendonly", "no").Err(), "can't set immutable config")
}

// saves is INFO persistence's rdb_saves: the good Syncs so far.
func saves(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	fields, _ := parseInfo(t, rdb.Info(ctx(t), "persistence").Val())
	n, err := strconv.ParseInt(fields["rdb_saves"], 10, 64)
	require.NoError(t, err)
	return n
}

// TestAppendfsyncAlwaysOneSyncPerPipeline: with always, every write is
// answered after a Sync of its own, a pipeline of writes (BF.ADD runs,
// BF.MADD, BF.RESERVE, a transaction) after one Sync for all, and reads
// cost none.
func TestAppendfsyncAlwaysOneSyncPerPipeline(t *testing.T) {
	_, addr := startServer(t, Config{DefaultCapacity: 1000, AppendFsync: AppendFsyncAlways})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, tc := range []struct {
		name  string
		syncs int64
		send  func(p redis.Pipeliner)
	}{
		{"one add", 1, func(p redis.Pipeliner) { p.BFAdd(c, "k", "a") }},
		{"a read", 0, func(p redis.Pipeliner) { p.BFExists(c, "k", "a") }},
		{"16 adds of a key", 1, func(p redis.Pipeliner) {
			for i := range 16 {
				p.BFAdd(c, "k", i)
			}
		}},
		{"adds, MADD, RESERVE, reads", 1, func(p redis.Pipeliner) {
			p.BFAdd(c, "k", "x")
			p.BFMAdd(c, "k2", "y", "z")
			p.BFExists(c, "k", "x")
			p.BFReserve(c, "k3", 0.01, 100)
			p.BFAdd(c, "k3", "w")
		}},
		{"a transaction", 1, func(p redis.Pipeliner) {
			p.Do(c, "MULTI")
			p.BFAdd(c, "k", "t1")
			p.BFAdd(c, "k2", "t2")
			p.Do(c, "EXEC")
		}},
	} {
		before := saves(t, rdb)
		pipe := rdb.Pipeline()
		tc.send(pipe)
		_, err := pipe.Exec(c)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.syncs, saves(t, rdb)-before, tc.name)
	}
}

// TestAppendfsyncAlwaysGroupCommit: writers that arrive while a Sync
// runs all wait for the next one and share it: one Sync for eight
// clients.
func TestAppendfsyncAlwaysGroupCommit(t *testing.T) {
	const writers = 8
	s, addr := startServer(t, Config{DefaultCapacity: 1000, AppendFsync: AppendFsyncAlways})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "k", "first").Err())
	held, release := make(chan struct{}), make(chan struct{})
	joined := make(chan struct{}, writers+1)
	var once sync.Once
	s.fsync.hooks.Store(&syncHooks{
		joined: func() { joined <- struct{}{} },
		start:  func() { once.Do(func() { close(held); <-release }) },
	})
	before := saves(t, rdb)

	first := make(chan error, 1)
	go func() { first <- rdb.BFAdd(c, "k", "a").Err() }()
	waitFor(t, held, "the first Sync starts")
	<-joined
	errs := make(chan error, writers)
	for i := range writers {
		go func() { errs <- dial(t, addr, "").BFAdd(c, "k", fmt.Sprint("w", i)).Err() }()
	}
	for range writers {
		waitFor(t, joined, "a writer joins the next Sync")
	}
	close(release)
	require.NoError(t, <-first)
	for range writers {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, int64(2), saves(t, rdb)-before, "the held Sync, then one for the eight writers")
}

// waitFor waits for ch, failing the test after a minute.
func waitFor[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("timed out waiting: %s", what)
	}
}

// TestAppendfsyncFailedSyncMisconf: with always, a write whose Sync fails
// is not acknowledged (its connection closes without its reply), then
// writes answer MISCONF and INFO's aof_last_write_status is err; once
// the disk is back, the loop's retry lets writes through.
func TestAppendfsyncFailedSyncMisconf(t *testing.T) {
	p := powercut.Mount(t, t.TempDir())
	_, addr := startServer(t, Config{Dir: p.Dir, DefaultCapacity: 1000, AppendFsync: AppendFsyncAlways})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "k", "a").Err())
	status := func() string {
		fields, _ := parseInfo(t, rdb.Info(c, "persistence").Val())
		return fields["aof_last_write_status"]
	}
	require.Equal(t, "ok", status())

	require.NoError(t, p.Fail())
	err := rdb.BFAdd(c, "k", "b").Err()
	require.Error(t, err)
	assert.NotEqual(t, msgMisconf, err.Error(), "no reply: the connection closed")
	assert.Equal(t, "err", status())
	assert.EqualError(t, rdb.BFAdd(c, "k", "c").Err(), msgMisconf)

	require.NoError(t, p.Heal())
	for i := 0; rdb.BFAdd(c, "k", "c").Err() != nil; i++ {
		require.Less(t, i, 600, "the retry each second did not let writes through in a minute")
		time.Sleep(100 * time.Millisecond)
	}
	assert.Equal(t, "ok", status())
}

// TestLogSyncFollowsAppendfsync: the embedded JetStream store's fsyncs
// agree with appendfsync (every write, each second, nats-server's
// default), and --nats-sync-always forces every write.
func TestLogSyncFollowsAppendfsync(t *testing.T) {
	tests := []struct {
		appendfsync string
		syncAlways  bool
		always      bool
		interval    time.Duration
	}{
		{AppendFsyncAlways, false, true, 0},
		{AppendFsyncEverysec, false, false, time.Second},
		{AppendFsyncNo, false, false, 0},
		{AppendFsyncNo, true, true, 0},
		{AppendFsyncEverysec, true, true, 0},
	}
	for _, tc := range tests {
		cfg := Config{AppendFsync: tc.appendfsync}
		cfg.Replicate.SyncAlways = tc.syncAlways
		always, interval := logSync(cfg)
		assert.Equal(t, tc.always, always, "%+v", tc)
		assert.Equal(t, tc.interval, interval, "%+v", tc)
	}
}

// TestSyncDoesNotRefuseDel: the background Sync of every open filter
// (everysec's round, SAVE) does not make a DEL, RENAME or FLUSHALL of
// one of them fail as "open in a running command": DEL of keys being
// synced meanwhile removes each one.
func TestSyncDoesNotRefuseDel(t *testing.T) {
	s, addr := startServer(t, Config{ClientIdle: -1, AppendFsync: AppendFsyncNo})
	rdb, c := dial(t, addr, ""), ctx(t)
	stop := make(chan struct{})
	synced := make(chan error, 1)
	go func() {
		var err error
		for end := time.Now().Add(time.Minute); err == nil && time.Now().Before(end); {
			select {
			case <-stop:
				synced <- nil
				return
			default:
				err = s.store.SyncAll()
			}
		}
		synced <- err
	}()
	items := make([]any, 500)
	for i := range items {
		items[i] = "item-" + strconv.Itoa(i) // dirty pages all over the array, for Sync to write
	}
	for i := range 200 {
		key := "k" + strconv.Itoa(i%4)
		require.NoError(t, rdb.BFReserve(c, key, 0.001, 500_000).Err())
		require.NoError(t, rdb.BFMAdd(c, key, items...).Err())
		n, err := rdb.Del(c, key).Result()
		require.NoError(t, err, "DEL %d", i)
		require.EqualValues(t, 1, n)
	}
	close(stop)
	require.NoError(t, <-synced)
}
