package server

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInfoPersistenceSync: INFO persistence gives the last Sync of the
// filters (WAITAOF 1 here) as Redis gives its last save: the keys added
// since, its time, its status and the number of Syncs, in redis-server
// 7.0's field order.
func TestInfoPersistenceSync(t *testing.T) {
	s, addr := startServer(t, Config{})
	rdb := dial2(t, addr)
	c := ctx(t)
	f, sections := parseInfo(t, do(t, rdb, "INFO", "persistence").(string))
	assert.Equal(t, []string{"Persistence"}, sections)
	assert.Equal(t, redisPersistenceFields, infoNames(t, do(t, rdb, "INFO", "persistence").(string)))
	assert.Equal(t, strconv.FormatInt(s.start.Unix(), 10), f["rdb_last_save_time"], "the start before a first Sync")
	assert.Equal(t, "0", f["rdb_saves"])
	assert.Equal(t, "-1", f["rdb_last_bgsave_time_sec"])

	for i := range 5 {
		require.NoError(t, rdb.Do(c, "BF.ADD", "k", i).Err())
	}
	require.NoError(t, rdb.Do(c, "BF.ADD", "k", 0).Err()) // not new
	f, _ = parseInfo(t, do(t, rdb, "INFO", "persistence").(string))
	assert.Equal(t, "5", f["rdb_changes_since_last_save"])

	before := time.Now().Unix()
	assert.Equal(t, []any{int64(1), int64(0)}, do(t, rdb, "WAITAOF", "1", "0", "0"))
	f, _ = parseInfo(t, do(t, rdb, "INFO", "persistence").(string))
	assert.Equal(t, "0", f["rdb_changes_since_last_save"])
	assert.Equal(t, "1", f["rdb_saves"])
	assert.Equal(t, "ok", f["rdb_last_bgsave_status"])
	assert.Equal(t, "0", f["rdb_bgsave_in_progress"])
	assert.Equal(t, "-1", f["rdb_current_bgsave_time_sec"])
	last, err := strconv.ParseInt(f["rdb_last_save_time"], 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, last, before)
	took, err := strconv.ParseInt(f["rdb_last_bgsave_time_sec"], 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, took, int64(0))

	require.NoError(t, rdb.Do(c, "BF.MADD", "k", "a", "b").Err())
	f, _ = parseInfo(t, do(t, rdb, "INFO", "persistence").(string))
	assert.Equal(t, "2", f["rdb_changes_since_last_save"])
	require.NoError(t, rdb.Do(c, "CONFIG", "RESETSTAT").Err())
	require.NoError(t, rdb.Do(c, "BF.ADD", "k", "c").Err())
	f, _ = parseInfo(t, do(t, rdb, "INFO", "persistence").(string))
	assert.Equal(t, "3", f["rdb_changes_since_last_save"], "RESETSTAT leaves the changes since the Sync")
	assert.Equal(t, "1", f["rdb_saves"])
}

// TestSyncStatFailure: a failed Sync is reported err and leaves the
// time of the last good one and the changes since it, as Redis's failed
// save does.
func TestSyncStatFailure(t *testing.T) {
	var st syncStat
	st.done(time.Unix(100, 0), time.Unix(102, 0), 7, nil)
	st.done(time.Unix(200, 0), time.Unix(203, 0), 9, errors.New("msync: EIO"))
	f := map[string]string{}
	for _, kv := range st.info(time.Unix(50, 0), 12, time.Unix(300, 0)) {
		f[kv[0]] = kv[1]
	}
	assert.Equal(t, "err", f["rdb_last_bgsave_status"])
	assert.Equal(t, "102", f["rdb_last_save_time"])
	assert.Equal(t, "5", f["rdb_changes_since_last_save"])
	assert.Equal(t, "1", f["rdb_saves"])
	assert.Equal(t, "3", f["rdb_last_bgsave_time_sec"])
}

// redisPersistenceFields are redis-server 7.0.15's INFO persistence
// fields, in its order (redis-cli INFO persistence, without AOF or
// RDB configured).
var redisPersistenceFields = []string{
	"loading", "async_loading", "current_cow_peak", "current_cow_size", "current_cow_size_age",
	"current_fork_perc", "current_save_keys_processed", "current_save_keys_total",
	"rdb_changes_since_last_save", "rdb_bgsave_in_progress", "rdb_last_save_time",
	"rdb_last_bgsave_status", "rdb_last_bgsave_time_sec", "rdb_current_bgsave_time_sec",
	"rdb_saves", "rdb_last_cow_size", "rdb_last_load_keys_expired", "rdb_last_load_keys_loaded",
	"aof_enabled", "aof_rewrite_in_progress", "aof_rewrite_scheduled", "aof_last_rewrite_time_sec",
	"aof_current_rewrite_time_sec", "aof_last_bgrewrite_status", "aof_rewrites",
	"aof_rewrites_consecutive_failures", "aof_last_write_status", "aof_last_cow_size",
	"module_fork_in_progress", "module_fork_last_cow_size",
}

// infoNames returns the names of INFO's fields in order.
func infoNames(t *testing.T, text string) []string {
	t.Helper()
	var names []string
	for _, line := range strings.Split(text, "\r\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			names = append(names, k)
		}
	}
	return names
}
