package server

import (
	"log"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/powercut"
)

// TestMisconfAfterFailedSync: once the disk fails (every write and fsync
// of the data directory answers EIO) and a Sync has failed, every write
// command answers Redis's MISCONF, single, pipelined, batched and in a
// transaction, and so does PING, while reads go on;
// stop-writes-on-bgsave-error no lets writes through; once the disk is
// back and a Sync succeeds, writes are answered again and INFO's status
// is ok.
func TestMisconfAfterFailedSync(t *testing.T) {
	p := powercut.Mount(t, t.TempDir())
	logs := &testkit.SyncBuffer{}
	s, addr := startServer(t, Config{Dir: p.Dir, DefaultCapacity: 1000, Log: log.New(logs, "", 0)})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "seen", "a").Err())
	require.NoError(t, rdb.Do(c, "WAITAOF", 1, 0, 0).Err())
	status := func() string {
		fields, _ := parseInfo(t, rdb.Info(c, "persistence").Val())
		return fields["rdb_last_bgsave_status"]
	}
	require.Equal(t, "ok", status())

	require.NoError(t, p.Fail())
	lastSave := rdb.LastSave(c).Val()
	require.Error(t, rdb.Do(c, "WAITAOF", 1, 0, 0).Err(), "the Sync fails")
	assert.Equal(t, "err", status())
	assert.EqualError(t, rdb.Save(c).Err(), "ERR", "SAVE fails as Redis's, bare")
	assert.Equal(t, lastSave, rdb.LastSave(c).Val(), "LASTSAVE is the last good Sync")
	st := s.Stats()
	assert.True(t, st.SyncFailing)
	assert.EqualValues(t, 2, st.SyncErrors)
	assert.Contains(t, logs.String(), "writes answer MISCONF until a Sync succeeds")
	for _, args := range [][]any{{"BF.ADD", "seen", "b"}, {"BF.MADD", "seen", "b", "c"}, {"BF.RESERVE", "new", 0.01, 100},
		{"DEL", "seen"}, {"PING"}} {
		assert.EqualError(t, rdb.Do(c, args...).Err(), msgMisconf, "%v", args)
	}
	pipe := rdb.Pipeline()
	adds := []*redis.BoolCmd{pipe.BFAdd(c, "seen", "x"), pipe.BFAdd(c, "seen", "y"), pipe.BFAdd(c, "seen", "z")}
	_, _ = pipe.Exec(c)
	for _, a := range adds {
		assert.EqualError(t, a.Err(), msgMisconf, "a batch of pipelined adds")
	}
	tx := rdb.TxPipeline()
	tx.BFAdd(c, "seen", "t")
	_, err := tx.Exec(c)
	assert.ErrorContains(t, err, "EXECABORT", "a write queued in MULTI")
	assert.True(t, rdb.BFExists(c, "seen", "a").Val(), "reads go on")
	assert.False(t, rdb.BFExists(c, "seen", "b").Val(), "the refused add did not run")

	require.NoError(t, rdb.ConfigSet(c, "stop-writes-on-bgsave-error", "no").Err())
	require.NoError(t, rdb.BFAdd(c, "seen", "b").Err(), "Redis's escape")
	require.NoError(t, rdb.ConfigSet(c, "stop-writes-on-bgsave-error", "yes").Err())
	assert.EqualError(t, rdb.BFAdd(c, "seen", "c").Err(), msgMisconf)

	require.NoError(t, p.Heal())
	require.Equal(t, "OK", rdb.Save(c).Val(), "the disk is back")
	assert.Equal(t, "ok", status())
	assert.False(t, s.Stats().SyncFailing)
	assert.Contains(t, logs.String(), "writes are answered again")
	require.NoError(t, rdb.BFAdd(c, "seen", "c").Err())
	assert.Equal(t, "PONG", rdb.Ping(c).Val())
}

// TestSaveBgsaveLastsave: SAVE, BGSAVE and LASTSAVE answer as
// redis-server 7.0.15 does (its replies, read from it) and run the Sync
// of the open filters: LASTSAVE is the server's start before one, then
// the end of the last; BGSAVE's Sync shows in rdb_saves; SAVE is refused
// inside MULTI.
func TestSaveBgsaveLastsave(t *testing.T) {
	s, addr := startServer(t, Config{AppendFsync: AppendFsyncNo})
	rdb, c := dial(t, addr, ""), ctx(t)
	assert.Equal(t, s.start.Unix(), rdb.LastSave(c).Val(), "the start before a Sync")
	require.NoError(t, rdb.BFAdd(c, "seen", "a").Err())
	assert.Equal(t, "OK", rdb.Save(c).Val())
	assert.EqualValues(t, 1, s.Stats().Syncs)
	assert.GreaterOrEqual(t, rdb.LastSave(c).Val(), s.start.Unix())

	tests := []struct {
		args []any
		want string
	}{
		{[]any{"BGSAVE"}, "Background saving started"},
		{[]any{"BGSAVE", "schedule"}, "Background saving started"},
		{[]any{"BGSAVE", "foo"}, "ERR syntax error"},
		{[]any{"BGSAVE", "schedule", "x"}, "ERR syntax error"},
		{[]any{"SAVE", "x"}, "ERR wrong number of arguments for 'save' command"},
		{[]any{"LASTSAVE", "x"}, "ERR wrong number of arguments for 'lastsave' command"},
	}
	for _, tc := range tests {
		v, err := rdb.Do(c, tc.args...).Result()
		if err != nil {
			assert.EqualError(t, err, tc.want, "%v", tc.args)
		} else {
			assert.Equal(t, tc.want, v, "%v", tc.args)
		}
	}
	require.Eventually(t, func() bool { return s.Stats().Syncs >= 3 }, time.Minute, 10*time.Millisecond,
		"the two BGSAVEs ran Syncs")

	tx := rdb.TxPipeline()
	tx.Save(c)
	_, err := tx.Exec(c)
	assert.ErrorContains(t, err, "EXECABORT")
	conn := rdb.Conn()
	defer conn.Close()
	require.NoError(t, conn.Do(c, "MULTI").Err())
	assert.EqualError(t, conn.Do(c, "SAVE").Err(), "ERR Command not allowed inside a transaction")
	assert.EqualError(t, conn.Do(c, "EXEC").Err(), "EXECABORT Transaction discarded because of previous errors.")
}
