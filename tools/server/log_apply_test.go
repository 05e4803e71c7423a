package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// A node applying another node's records whose data directory is past
// --disk-reserve stops the stream at the first record it cannot apply:
// its applied position stays before it, INFO replication shows the
// error, later records wait; once space is freed it applies them all
// and every acknowledged add answers present there.
func TestReplicationFollowerStopsOnDiskReserve(t *testing.T) {
	dir := testkit.SmallFS(t, "16m")
	tc, url := startLogged(t, func(c *Config) { c.Dir, c.Limits.DiskReserve = dir, 8<<20 })
	srv, rdb, c := tc.srvs[0], dial(t, tc.addrs[0], ""), ctx(t)
	lay := replication.Layout{Streams: DefaultReplicationStreams, Replicas: 1}
	origin, err := replication.Open(replication.Config{URLs: []string{url}, Node: "origin", Layout: lay, Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = origin.Close() })
	stream := lay.StreamOf(cluster.KeySlot([]byte("{t}a")))
	var acked []string // "key item" of every add the log acknowledged
	add := func(key string, items ...string) uint64 {
		rec := replication.Record{Op: replication.OpAdd, Fields: [][]byte{[]byte(key)}}
		for _, it := range items {
			rec.Fields = append(rec.Fields, []byte(it))
			acked = append(acked, key+" "+it)
		}
		seq, err := origin.Publish(c, stream, rec)
		require.NoError(t, err)
		return seq
	}
	log := srv.repl.log()
	first := add("{t}a", "a0", "a1")
	require.NoError(t, log.WaitApplied(c, stream, first))

	ballast := fillDisk(t, dir, 4<<20) // 4 MiB free: below the 8 MiB reserve
	stop := add("{t}b", "b0")          // a new key: its create is refused here
	add("{t}a", "a2")                  // behind it
	last := add("{t}a", "a3")
	assert.Eventually(t, func() bool { return logField(t, srv, stream, "error") != "" }, 30*time.Second, 20*time.Millisecond,
		"the stream's error shows in INFO replication")
	assert.Contains(t, logField(t, srv, stream, "error"), "--disk-reserve")
	assert.Equal(t, fmt.Sprint(stop), logField(t, srv, stream, "stopped"))
	assert.Regexp(t, `^[1-9][0-9]*$`, logField(t, srv, stream, "apply_errors"))
	assert.Equal(t, "0", logField(t, srv, stream, "rewinds"), "no rewind: the log holds what was applied")
	assert.Equal(t, stop-1, log.Applied(stream), "the applied position stays before the record not applied")
	assert.Less(t, log.Recorded(stream), stop)
	assert.False(t, rdb.BFExists(c, "{t}a", "a3").Val(), "nothing after it is applied")

	require.NoError(t, os.Remove(ballast))
	require.NoError(t, log.WaitApplied(c, stream, last))
	require.Eventually(t, func() bool { return logField(t, srv, stream, "error") == "" }, time.Minute, 20*time.Millisecond,
		"the error clears once the record applies")
	assert.Equal(t, "0", logField(t, srv, stream, "stopped"))
	for _, ki := range acked {
		key, item, _ := strings.Cut(ki, " ")
		assert.True(t, rdb.BFExists(c, key, item).Val(), "acknowledged add %s %s answers present", key, item)
	}
}

// fillDisk writes a file in dir leaving about free bytes free on its
// file system, and returns its path.
func fillDisk(t *testing.T, dir string, free uint64) string {
	t.Helper()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	avail := st.Bavail * uint64(st.Bsize)
	require.Greater(t, avail, free)
	path := filepath.Join(dir, "ballast")
	require.NoError(t, os.WriteFile(path, make([]byte, avail-free), 0o644))
	return path
}

// logField is the field name of stream's mbf_log_NN line in srv's INFO
// replication ("" when absent; error is the line's last field).
func logField(t *testing.T, srv *Server, stream int, name string) string {
	t.Helper()
	var line string
	for _, kv := range srv.repl.info() {
		if kv[0] == fmt.Sprintf("mbf_log_%02d", stream) {
			line = kv[1]
		}
	}
	if i := strings.Index(line, ",error="); name == "error" && i >= 0 {
		return line[i+len(",error="):]
	}
	for _, f := range strings.Split(line, ",") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// A record another node's limits let through but this node's
// --max-filter-bytes refuses stops the stream here while that node's
// limits are unknown or differ (bucket MBF_NODES), and is recorded as
// refused, as on its origin, once they are the same. The node publishes
// its own limits there.
func TestReplicationFollowerLimitsDiffer(t *testing.T) {
	tc, url := startLogged(t, func(c *Config) { c.Limits.MaxFilterBytes = 64 << 10 })
	srv, rdb, c := tc.srvs[0], dial(t, tc.addrs[0], ""), ctx(t)
	lay := replication.Layout{Streams: DefaultReplicationStreams, Replicas: 1}
	origin, err := replication.Open(replication.Config{URLs: []string{url}, Node: "origin", Layout: lay, Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = origin.Close() })
	kv, err := replication.OpenNodes(c, origin)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := kv.Get(c, "limits.node1")
		return err == nil && string(v) == srv.flagLimits()
	}, time.Minute, 20*time.Millisecond, "the node publishes its limits")

	stream := lay.StreamOf(cluster.KeySlot([]byte("{t}big")))
	stop, err := origin.Publish(c, stream, replication.Record{Op: replication.OpCommand,
		Fields: [][]byte{[]byte("BF.RESERVE"), []byte("{t}big"), []byte("0.01"), []byte("100000")}})
	require.NoError(t, err)
	last, err := origin.Publish(c, stream, replication.Record{Op: replication.OpAdd, Fields: [][]byte{[]byte("{t}a"), []byte("x")}})
	require.NoError(t, err)
	log := srv.repl.log()
	require.Eventually(t, func() bool { return strings.Contains(logField(t, srv, stream, "error"), "could not be compared") },
		time.Minute, 20*time.Millisecond, "origin's limits unknown: stopped")
	err = kv.Put(c, "limits.origin", []byte("max-filter-bytes=4294967296 max-layers=64 max-client-loads=4"))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return strings.Contains(logField(t, srv, stream, "error"), "origin, the record's origin, runs with max-filter-bytes=4294967296")
	}, time.Minute, 20*time.Millisecond, "origin's limits differ: stopped")
	assert.Equal(t, stop-1, log.Applied(stream))

	err = kv.Put(c, "limits.origin", []byte(srv.flagLimits()))
	require.NoError(t, err)
	require.NoError(t, log.WaitApplied(c, stream, last))
	assert.EqualValues(t, 0, rdb.Exists(c, "{t}big").Val(), "refused here as on its origin")
	assert.True(t, rdb.BFExists(c, "{t}a", "x").Val())
	assert.Equal(t, "", logField(t, srv, stream, "error"))
}
