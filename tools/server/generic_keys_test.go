package server

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// keysScript is sent byte for byte to redis-server 7.0 and to the server
// (keys a and b exist on both: strings there, filters here); every reply
// is compared exactly.
var keysScript = []string{
	"RENAME nosuch x\r\n",
	"RENAMENX nosuch x\r\n",
	"RENAME nosuch nosuch\r\n",
	"RENAME a a\r\n",
	"RENAMENX a a\r\n",
	"RENAME a c\r\n",
	"EXISTS a c\r\n",
	"RENAMENX c b\r\n",
	"RENAMENX c d\r\n",
	"RENAME d b\r\n",
	"EXISTS b c d\r\n",
	"DBSIZE\r\n",
	"RENAME x\r\n",
	"RENAMENX x y z\r\n",
	"MEMORY USAGE nosuch\r\n",
	"MEMORY USAGE nosuch SAMPLES 5\r\n",
	"MEMORY USAGE nosuch SAMPLES 0\r\n",
	"MEMORY USAGE b SAMPLES\r\n",
	"MEMORY USAGE b SAMPLES x\r\n",
	"MEMORY USAGE b SAMPLES -1\r\n",
	"MEMORY USAGE b FOO\r\n",
	"MEMORY USAGE\r\n",
	"MEMORY\r\n",
	"FLUSHALL FOO\r\n",
	"FLUSHALL SYNC ASYNC\r\n",
	"FLUSHDB FOO\r\n",
	"SHUTDOWN FOO\r\n",
	"SHUTDOWN ABORT\r\n",
	"SHUTDOWN NOSAVE SAVE\r\n",
	"SHUTDOWN ABORT NOW\r\n",
	"SHUTDOWN save force abort\r\n",
	"MULTI\r\n",
	"SHUTDOWN\r\n",
	"EXEC\r\n",
	"FLUSHDB ASYNC\r\n",
	"DBSIZE\r\n",
	"FLUSHALL sync\r\n",
	"FLUSHALL\r\n",
	"DBSIZE\r\n",
	"COMMAND INFO rename renamenx flushdb flushall shutdown memory|usage\r\n",
	"HELLO 3\r\n",
	"COMMAND INFO rename renamenx flushdb flushall shutdown memory|usage\r\n",
	"MEMORY USAGE nosuch\r\n",
}

// TestKeysAsRedis: RENAME, RENAMENX, MEMORY USAGE, FLUSHDB, FLUSHALL and
// SHUTDOWN's refusals answer byte for byte as Debian's redis-server 7.0,
// and COMMAND INFO gives them Redis's flags, ACL categories and key
// specifications.
func TestKeysAsRedis(t *testing.T) {
	ref := startRedisRef(t)
	_, addr := startServer(t, Config{ClientIdle: -1, AppendFsync: AppendFsyncNo})
	for _, k := range []string{"a", "b"} {
		send(t, ref, "*3\r\n$3\r\nSET\r\n$1\r\n"+k+"\r\n$1\r\n1\r\n")
		send(t, addr, "*3\r\n$6\r\nBF.ADD\r\n$1\r\n"+k+"\r\n$1\r\nx\r\n")
	}
	rc, sc := dialRaw(t, ref), dialRaw(t, addr)
	for _, req := range keysScript {
		want, got := rc.roundTrip(t, req), sc.roundTrip(t, req)
		if req == "HELLO 3\r\n" {
			continue // the servers' names differ
		}
		assert.Equal(t, string(want), string(got), "%q", req)
	}
}

// TestKeysGoRedis: go-redis's own helpers (Rename, RenameNX,
// MemoryUsage, FlushDB, FlushAll) on filters and sets.
func TestKeysGoRedis(t *testing.T) {
	s, addr := startServer(t, Config{ClientIdle: -1, DefaultExpansion: 2})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "fixed", 0.01, 1000, "NONSCALING").Err()) // a .bloom file
	require.NoError(t, rdb.BFAdd(c, "fixed", "x").Err())
	require.NoError(t, rdb.BFAdd(c, "set", "y").Err()) // scaling: a .bfset directory

	n, err := rdb.MemoryUsage(c, "fixed").Result()
	require.NoError(t, err)
	assert.Positive(t, n)
	n, err = rdb.MemoryUsage(c, "set", 5).Result()
	require.NoError(t, err)
	assert.Positive(t, n)
	require.ErrorIs(t, rdb.MemoryUsage(c, "nosuch").Err(), redis.Nil)

	require.NoError(t, rdb.Rename(c, "fixed", "f2").Err())
	require.NoError(t, rdb.Rename(c, "set", "s2").Err())
	ok, err := rdb.RenameNX(c, "f2", "s2").Result()
	require.NoError(t, err)
	assert.False(t, ok, "s2 exists")
	assert.FileExists(t, filepath.Join(s.cfg.Dir, "f2.bloom"))
	assert.DirExists(t, filepath.Join(s.cfg.Dir, "s2.bfset"))
	for key, item := range map[string]string{"f2": "x", "s2": "y"} {
		found, err := rdb.BFExists(c, key, item).Result()
		require.NoError(t, err)
		assert.True(t, found, "%s keeps its items", key)
	}
	require.NoError(t, rdb.Rename(c, "f2", "s2").Err(), "a file replaces a set")
	found, err := rdb.BFExists(c, "s2", "x").Result()
	require.NoError(t, err)
	assert.True(t, found)
	require.EqualError(t, rdb.Rename(c, "f2", "z").Err(), "ERR no such key")

	require.NoError(t, rdb.FlushDB(c).Err())
	require.NoError(t, rdb.BFAdd(c, "again", "y").Err())
	require.NoError(t, rdb.FlushAllAsync(c).Err())
	keys, err := rdb.Keys(c, "*").Result()
	require.NoError(t, err)
	assert.Empty(t, keys)
}

// TestKeysInUse: RENAME, FLUSHALL and MBF.MERGE refuse a file another
// handle holds open, as DEL does, and change nothing then.
func TestKeysInUse(t *testing.T) {
	s, addr := startServer(t, Config{ClientIdle: -1})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, k := range []string{"held", "other"} {
		require.NoError(t, rdb.Do(c, "BF.RESERVE", k, 0.01, 1000, "NONSCALING").Err())
		require.NoError(t, rdb.BFAdd(c, k, "x").Err())
	}
	f, err := mmapbloom.Open(filepath.Join(s.cfg.Dir, "held.bloom"), nil)
	require.NoError(t, err)
	defer f.Close()

	require.EqualError(t, rdb.Rename(c, "held", "z").Err(), "ERR key 'held' is open in another process (or in a running command): not renamed")
	require.EqualError(t, rdb.Rename(c, "other", "held").Err(), "ERR key 'held' is open in another process (or in a running command): not renamed")
	require.EqualError(t, rdb.Do(c, "MBF.MERGE", "held", "other").Err(), "ERR key 'held' is open in another process (or in a running command): not merged into")
	require.NoError(t, rdb.Do(c, "MBF.MERGE", "other", "held").Err(), "a source may be open elsewhere")
	err = rdb.FlushAll(c).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ERR key 'held' is open in another process")
	keys, err := rdb.Keys(c, "*").Result()
	require.NoError(t, err)
	assert.Contains(t, keys, "held", "kept")
	for _, k := range []string{"held", "other"} {
		found, err := rdb.BFExists(c, k, "x").Result()
		require.NoError(t, err)
		assert.True(t, found, "%s whole after the refusals", k)
	}
}

// TestMBFMerge: MBF.MERGE ORs fixed filters of one shape; a set, a
// missing key or another shape is refused.
func TestMBFMerge(t *testing.T) {
	_, addr := startServer(t, Config{ClientIdle: -1, DefaultExpansion: 2})
	rdb, c := dial(t, addr, ""), ctx(t)
	reserve := func(key string, n int) {
		require.NoError(t, rdb.Do(c, "BF.RESERVE", key, 0.01, n, "NONSCALING").Err())
	}
	reserve("dst", 1000)
	reserve("src1", 1000)
	reserve("src2", 1000)
	reserve("small", 10)
	var want []any
	for i := range 50 {
		item := "item" + strconv.Itoa(i)
		require.NoError(t, rdb.BFAdd(c, []string{"src1", "src2"}[i%2], item).Err())
		want = append(want, item)
	}
	require.NoError(t, rdb.BFAdd(c, "set", "y").Err())

	require.NoError(t, rdb.Do(c, "MBF.MERGE", "dst", "src1", "src2").Err())
	got, err := rdb.BFMExists(c, "dst", want...).Result()
	require.NoError(t, err)
	for i, ok := range got {
		assert.True(t, ok, "item %d merged", i)
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"dst", "nosuch"}, "ERR not found"},
		{[]any{"nosuch", "src1"}, "ERR not found"},
		{[]any{"dst", "set"}, "ERR 'set': " + errMergeSet.Error()},
		{[]any{"set", "dst"}, "ERR 'set': " + errMergeSet.Error()},
		{[]any{"dst"}, "ERR wrong number of arguments for 'mbf.merge' command"},
	} {
		err := rdb.Do(c, append([]any{"MBF.MERGE"}, tc.args...)...).Err()
		require.Error(t, err, "%v", tc.args)
		assert.Equal(t, tc.want, err.Error(), "%v", tc.args)
	}
	err = rdb.Do(c, "MBF.MERGE", "dst", "small").Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "differs", "another shape")
	assert.Contains(t, err.Error(), mmapbloom.ErrMismatch.Error())
}

// TestKeysFolded: on a folded key, RENAME, RENAMENX, MEMORY USAGE and
// MBF.MERGE are refused as DEL is; FLUSHALL keeps folded buckets.
func TestKeysFolded(t *testing.T) {
	_, addr := startServer(t, Config{ClientIdle: -1, DefaultExpansion: 2, FoldHashtags: true})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "seen:{a.com}", "x").Err())
	require.NoError(t, rdb.BFAdd(c, "plain", "x").Err())
	for _, args := range [][]any{
		{"DEL", "seen:{a.com}"},
		{"RENAME", "seen:{a.com}", "z"},
		{"RENAMENX", "plain", "seen:{a.com}"},
		{"MEMORY", "USAGE", "seen:{a.com}"},
		{"MBF.MERGE", "plain", "seen:{a.com}"},
	} {
		err := rdb.Do(c, args...).Err()
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), "of a folded key ('seen:{a.com}')", "%v", args)
	}
	require.NoError(t, rdb.FlushAll(c).Err())
	n, err := rdb.DBSize(c).Result()
	require.NoError(t, err)
	assert.Zero(t, n)
	found, err := rdb.BFExists(c, "seen:{a.com}", "x").Result()
	require.NoError(t, err)
	assert.True(t, found, "FLUSHALL keeps folded buckets")
}

// TestKeysReplicated: RENAME, MBF.MERGE and FLUSHALL change data through
// the replication log as DEL does: a node following node1's stream
// (node2, its replica) ends with the same keys and items.
func TestKeysReplicated(t *testing.T) {
	tc, _ := startLoggedNodes(t, primaryAndReplica)
	c := ctx(t)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return n1.Do(c, "BF.RESERVE", "{k}a", 0.01, 1000, "NONSCALING").Err() == nil },
		2*time.Minute, 50*time.Millisecond, "node1 serves its slots")
	require.NoError(t, n1.Do(c, "BF.RESERVE", "{k}b", 0.01, 1000, "NONSCALING").Err())
	require.NoError(t, n1.BFMAdd(c, "{k}a", "x", "y").Err())
	require.NoError(t, n1.BFAdd(c, "{k}b", "z").Err())
	require.NoError(t, n1.Rename(c, "{k}a", "{k}moved").Err())
	require.NoError(t, n1.Do(c, "MBF.MERGE", "{k}moved", "{k}b").Err())
	require.NoError(t, n1.BFAdd(c, "{k}gone", "g").Err())

	n2 := dial(t, tc.addrs[1], "").Conn()
	t.Cleanup(func() { _ = n2.Close() })
	require.NoError(t, n2.ReadOnly(c).Err())
	require.Eventually(t, func() bool {
		return n2.Exists(c, "{k}gone").Val() == 1 && n2.Exists(c, "{k}a").Val() == 0
	}, time.Minute, 10*time.Millisecond, "node2 applies the records")
	assert.Equal(t, []bool{true, true, true}, n2.BFMExists(c, "{k}moved", "x", "y", "z").Val(), "renamed, then merged")
	assert.Equal(t, int64(1), n2.Exists(c, "{k}b").Val())

	require.NoError(t, n1.FlushAll(c).Err())
	require.Eventually(t, func() bool { return n2.DBSize(c).Val() == 0 }, time.Minute, 10*time.Millisecond,
		"node2 applies FLUSHALL's DELs")
}
