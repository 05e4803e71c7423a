package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// addsPipeline is a pipeline of BF.ADDs (runs of one key, repeated
// items, a full NONSCALING filter, a key too long to be a file) with
// reads between them.
var addsPipeline = [][]any{
	{"BF.RESERVE", "full", "0.01", "2", "NONSCALING"},
	{"BF.ADD", "seen", "a"}, {"BF.ADD", "seen", "b"}, {"BF.ADD", "seen", "a"}, {"BF.ADD", "seen", "c"},
	{"BF.EXISTS", "seen", "c"}, {"BF.EXISTS", "seen", "d"},
	{"BF.ADD", "seen", "c"}, {"BF.ADD", "seen", "d"}, {"BF.ADD", "other", "a"}, {"BF.ADD", "seen", "d"},
	{"BF.ADD", "full", "x"}, {"BF.ADD", "full", "y"}, {"BF.ADD", "full", "z"}, {"BF.ADD", "full", "x"},
	{"BF.ADD", strings.Repeat("k", 300), "a"}, {"BF.ADD", strings.Repeat("k", 300), "b"},
	{"BF.ADD", "single", "a"},
}

// runPipeline sends cmds as one pipeline and returns each reply, or its
// error's text.
func runPipeline(t *testing.T, rdb *redis.Client, cmds [][]any) []any {
	t.Helper()
	pipe := rdb.Pipeline()
	out := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		out[i] = pipe.Do(ctx(t), c...)
	}
	_, _ = pipe.Exec(ctx(t))
	got := make([]any, len(cmds))
	for i, c := range out {
		if got[i] = c.Val(); c.Err() != nil {
			got[i] = c.Err().Error()
		}
	}
	return got
}

// With the log, a pipeline's BF.ADDs (published as one record per run
// of a key) answer as they do without it, in RESP2 and RESP3 (true and
// false, not the integers of the node that applied them). Both nodes
// make the full NONSCALING filter with one fixed seed (fixSeeds), so
// that both answer its adds alike.
func TestReplicationPipelinedAdds(t *testing.T) {
	logged, _ := startLogged(t)
	plain := startCluster(t, []string{"0-16383"})
	fixSeeds(t, logged.srvs[0])
	fixSeeds(t, plain.srvs[0])
	for proto, key := range map[int]string{2: "{2}", 3: "{3}"} {
		cmds := make([][]any, len(addsPipeline))
		for i, c := range addsPipeline {
			cmds[i] = append([]any{c[0], c[1].(string) + key}, c[2:]...)
		}
		want := runPipeline(t, dialProto(t, plain.addrs[0], "", proto), cmds)
		got := runPipeline(t, dialProto(t, logged.addrs[0], "", proto), cmds)
		assert.Equal(t, want, got, "RESP%d", proto)
		if proto == 3 {
			assert.Equal(t, true, got[1], "RESP3 answers a boolean")
		}
	}
}

// startLogged starts a one-node cluster with the log on one embedded
// nats-server (opts change the node's config), and returns it once the
// log takes writes, with the nats-server's client URL.
func startLogged(t *testing.T, opts ...func(*Config)) (*testCluster, string) {
	t.Helper()
	tc, srvs := startLoggedNodes(t, []string{"0-16383"}, opts...)
	probe := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return probe.Do(ctx(t), "BF.ADD", "probe", "x").Err() == nil },
		time.Minute, 50*time.Millisecond, "the log opens")
	return tc, srvs[0].ClientURL()
}

// startLoggedNodes starts a cluster of one node per entry of slots (as
// startCluster) with --replication jetstream, on a NATS cluster of as
// many embedded servers, node i's log connected to server i; opts change
// each node's config. The servers stop when the test ends.
func startLoggedNodes(t *testing.T, slots []string, opts ...func(*Config)) (*testCluster, []*replication.Embedded) {
	t.Helper()
	natstest.RequireEmbedded(t)
	names := make([]string, len(slots))
	for i := range slots {
		names[i] = fmt.Sprintf("n%d", i+1)
	}
	srvs, err := replication.StartLocalCluster(t.TempDir(), names)
	require.NoError(t, err)
	for _, s := range srvs {
		t.Cleanup(s.Shutdown)
	}
	tc := startCluster(t, slots, append([]func(*Config){func(c *Config) {
		i, err := strconv.Atoi(strings.TrimPrefix(c.NodeID, "node"))
		require.NoError(t, err)
		c.Replication, c.Replicate.NATSURLs = ReplicationJetStream, []string{srvs[i-1].ClientURL()}
	}}, opts...)...)
	return tc, srvs
}

// When the log refuses a message (a PubAck error), every BF.ADD of a
// pipelined run gets -TRYAGAIN, and their retry answers as the first
// call would: the items are new.
func TestReplicationPipelinedAddsRefused(t *testing.T) {
	tc, url := startLogged(t)
	var streams []string
	for i := range DefaultReplicationStreams {
		streams = append(streams, replication.Layout{}.StreamName(i))
	}
	limit := func(size int32) { natstest.SetMaxMsgSize(t, url, size, streams...) }
	cmds := [][]any{{"BF.ADD", "seen", "a"}, {"BF.ADD", "seen", "b"}, {"BF.ADD", "seen", "c"}, {"BF.EXISTS", "seen", "a"}}
	rdb := dial(t, tc.addrs[0], "")
	limit(16)
	got := runPipeline(t, rdb, cmds)
	for i, g := range got[:3] {
		assert.Contains(t, g, "TRYAGAIN", "BF.ADD %d", i)
	}
	assert.Equal(t, int64(0), got[3], "nothing was applied")
	limit(-1)
	assert.Equal(t, []any{int64(1), int64(1), int64(1), int64(1)}, runPipeline(t, rdb, cmds))
}
