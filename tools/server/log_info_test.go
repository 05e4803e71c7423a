package server

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// startLogged3 starts three nodes on the log (node1 owns every slot,
// node2 and node3 its replicas), each on its own embedded nats-server
// of one NATS cluster, with 4 streams; tweak changes a node's config.
// It returns once node1 takes writes.
func startLogged3(t *testing.T, tweak func(*Config)) *testCluster {
	t.Helper()
	natstest.RequireEmbedded(t)
	srvs, err := replication.StartLocalCluster(t.TempDir(), []string{"n1", "n2", "n3"})
	require.NoError(t, err)
	for _, s := range srvs {
		t.Cleanup(s.Shutdown)
	}
	tc := startCluster(t, []string{"0-16383", "replica-of node1", "replica-of node1"}, func(c *Config) {
		i, err := strconv.Atoi(strings.TrimPrefix(c.NodeID, "node"))
		require.NoError(t, err)
		c.Replication, c.Replicate.NATSURLs = ReplicationJetStream, []string{srvs[i-1].ClientURL()}
		c.Replicate.Streams = 4
		tweak(c)
	})
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return n1.Do(ctx(t), "BF.ADD", "{t}a", "a0").Err() == nil }, 2*time.Minute, 50*time.Millisecond,
		"node1 serves its slots")
	return tc
}

// lagOf is mbf_log_lag_NODE in rdb's INFO replication, -1 when absent
// or not a number.
func lagOf(t *testing.T, rdb *redis.Client, node string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(replicationField(t, rdb, "mbf_log_lag_"+node), 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// knownLag is lagOf once INFO could read the positions: -1 (a read of a
// stream's end or of a node's position that timed out, as under CI's
// race step: "-1 is not positive" once) is read again, for up to a
// minute.
func knownLag(t *testing.T, rdb *redis.Client, node string) int64 {
	t.Helper()
	var lag int64
	require.Eventually(t, func() bool { lag = lagOf(t, rdb, node); return lag >= 0 }, time.Minute, 50*time.Millisecond,
		"INFO reads %s's lag", node)
	return lag
}

// TestInfoReplicationLaggingNode: node3's directory goes past
// --disk-reserve, so it cannot apply the writes that create keys: its
// stream stops and its lag (mbf_log_lag_node3) is above 0 in every
// node's INFO, node1's and node2's at 0; node3's role fields say its
// link (the log) is down, node2's up. Once node3's disk is freed, its
// lag returns to 0, its stream line has no error, and its link is up.
func TestInfoReplicationLaggingNode(t *testing.T) {
	dir := testkit.SmallFS(t, "16m")
	tc := startLogged3(t, func(c *Config) {
		if c.NodeID == "node3" {
			c.Dir, c.Limits.DiskReserve = dir, 8<<20
		}
	})
	c := ctx(t)
	rdbs := make([]*redis.Client, 3)
	for i, a := range tc.addrs {
		rdbs[i] = dial(t, a, "")
	}
	require.Eventually(t, func() bool { return lagOf(t, rdbs[0], "node3") == 0 && lagOf(t, rdbs[0], "node2") == 0 },
		time.Minute, 50*time.Millisecond, "every node applied the first add")
	assert.Equal(t, "slave", replicationField(t, rdbs[1], "role"))
	assert.Equal(t, "up", replicationField(t, rdbs[1], "master_link_status"), "node2 follows the log")

	ballast := fillDisk(t, dir, 4<<20)
	for i := range 5 {
		require.NoError(t, rdbs[0].Do(c, "BF.ADD", fmt.Sprintf("{t}new%d", i), "x").Err())
	}
	for i, rdb := range rdbs {
		require.Eventually(t, func() bool { return lagOf(t, rdb, "node3") > 0 }, time.Minute, 50*time.Millisecond,
			"node%d's INFO shows node3 lagging", i+1)
		require.Eventually(t, func() bool { return lagOf(t, rdb, "node1") == 0 && lagOf(t, rdb, "node2") == 0 },
			time.Minute, 50*time.Millisecond, "node%d's INFO: node1 and node2 applied (and checkpointed)", i+1)
		assert.Positive(t, knownLag(t, rdb, "node3"), "node%d's INFO: node3 still lags", i+1)
	}
	assert.Equal(t, "down", replicationField(t, rdbs[2], "master_link_status"), "node3 is stopped on the log")
	stopped := streamStats(t, tc.srvs[2])
	assert.True(t, stopped.Stopped)
	assert.Positive(t, stopped.ApplyErrors)
	assert.True(t, stopped.LastKnown)
	assert.Greater(t, stopped.Last, stopped.Applied, "Stats: node3 lags")
	assert.Equal(t, "up", replicationField(t, rdbs[1], "master_link_status"))

	require.NoError(t, os.Remove(ballast))
	for i, rdb := range rdbs {
		require.Eventually(t, func() bool { return lagOf(t, rdb, "node3") == 0 }, time.Minute, 50*time.Millisecond,
			"node%d's INFO: node3 caught up", i+1)
	}
	require.Eventually(t, func() bool { return replicationField(t, rdbs[2], "master_link_status") == "up" },
		time.Minute, 50*time.Millisecond, "node3 applies the log again")
	require.Eventually(t, func() bool { s := streamStats(t, tc.srvs[2]); return !s.Stopped && s.Last == s.Applied },
		time.Minute, 50*time.Millisecond, "Stats: node3 applies again")
	text, err := rdbs[2].Info(c, "replication").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(text, "\r\n") {
		if strings.HasPrefix(line, "mbf_log_0") {
			assert.True(t, strings.HasSuffix(line, ",error="), "no error once applying: %s", line)
			assert.Contains(t, line, ",stopped=0,", line)
		}
	}
}

// streamStats is srv's Stats of the stream of slot 0 (of {t}), which it
// must follow.
func streamStats(t *testing.T, srv *Server) StreamStats {
	t.Helper()
	name := srv.repl.layout.StreamName(srv.repl.layout.StreamOf(cluster.KeySlot([]byte("{t}"))))
	for _, s := range srv.Stats().Streams {
		if s.Name == name {
			return s
		}
	}
	require.Failf(t, "no stream", "%s in Stats", name)
	return StreamStats{}
}
