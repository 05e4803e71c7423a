package server

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	_, addr := startServer(t, Config{Dir: p.Dir, DefaultCapacity: 1000})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "seen", "a").Err())
	require.NoError(t, rdb.Do(c, "WAITAOF", 1, 0, 0).Err())
	status := func() string {
		fields, _ := parseInfo(t, rdb.Info(c, "persistence").Val())
		return fields["rdb_last_bgsave_status"]
	}
	require.Equal(t, "ok", status())

	require.NoError(t, p.Fail())
	require.Error(t, rdb.Do(c, "WAITAOF", 1, 0, 0).Err(), "the Sync fails")
	assert.Equal(t, "err", status())
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
	require.NoError(t, rdb.Do(c, "WAITAOF", 1, 0, 0).Err(), "the disk is back")
	assert.Equal(t, "ok", status())
	require.NoError(t, rdb.BFAdd(c, "seen", "c").Err())
	assert.Equal(t, "PONG", rdb.Ping(c).Val())
}
