package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// A retention below what one node's recovery needs is refused at start
// (--replication-max-bytes 20000 was accepted, and with 8 pipelining
// clients the stream discarded messages before their origin applied
// them), naming the floor.
func TestReplicationRetentionFloor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		age      time.Duration
		bytes    int64
		refusing string
	}{
		{"no bound", 0, 0, ""},
		{"floors", replication.MinMaxAge, replication.MinMaxBytes, ""},
		{"the default age", 24 * time.Hour, 0, ""},
		{"20000 bytes", 0, 20000, "max bytes 20000"},
		{"below the bytes' floor", 0, replication.MinMaxBytes - 1, "at least 67108864"},
		{"30 s", 30 * time.Second, 0, "max age 30s"},
		{"below the age's floor", replication.MinMaxAge - time.Second, 0, "at least 2m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Replication: ReplicationJetStream, ClusterConfig: "nodes.conf",
				Replicate: ReplicationConfig{MaxAge: tc.age, MaxBytes: tc.bytes}}
			err := checkReplication(&cfg)
			if tc.refusing == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrBadConfig)
			assert.Contains(t, err.Error(), tc.refusing)
		})
	}
}

// A node bootstraps a stream from a peer whose durable consumer is gone
// (the peer replaces it at each bind; an R1 consumer's server may lose
// it): the copy's position comes from the peer itself, which covers
// every record it applied.
func TestReplicationBootstrapWithoutConsumer(t *testing.T) {
	tc := startLoggedTrio(t)
	c, n1 := ctx(t), dial(t, tc.addrs[0], "")
	for i := range 20 {
		require.NoError(t, n1.Do(c, "BF.ADD", "{b}seen", fmt.Sprint("item", i)).Err())
	}
	stream := tc.srvs[0].repl.layout.StreamOf(cluster.KeySlot([]byte("{b}seen")))
	log := tc.srvs[1].repl.log()
	last, err := log.LastSeq(c, stream)
	require.NoError(t, err)
	require.NoError(t, tc.srvs[0].repl.log().WaitApplied(c, stream, last))
	for range 3 {
		for _, id := range []string{"node1", "node3"} {
			natstest.DeleteConsumer(t, log.JetStream(), tc.srvs[0].repl.layout.StreamName(stream), "mbf_"+id)
		}
		covered, err := tc.srvs[1].repl.apply.Bootstrap(c, stream)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, covered, last, "the copy covers what node1 applied")
	}
}

// A write on a node whose stream has a gap it cannot bootstrap (the
// log discarded entries it never applied, and no peer can give them) is
// answered -TRYAGAIN at once, not after minutes: the gap stops the
// stream there as a record it cannot apply does (INFO replication's
// stopped= and error=), and the writes waiting on it are answered.
func TestReplicationGapAnswersWrites(t *testing.T) {
	natstest.RequireEmbedded(t)
	srv, err := replication.StartLocalCluster(t.TempDir(), []string{"n1"})
	require.NoError(t, err)
	t.Cleanup(srv[0].Shutdown)
	c := ctx(t)
	lay := replication.Layout{Streams: DefaultReplicationStreams, Replicas: 1}
	origin, err := replication.Open(replication.Config{URLs: []string{srv[0].ClientURL()}, Node: "origin", Layout: lay, Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = origin.Close() })
	stream := lay.StreamOf(cluster.KeySlot([]byte("{g}k")))
	rec := replication.Record{Op: replication.OpAdd, Fields: [][]byte{[]byte("{g}k"), []byte("gone")}}
	seq, err := origin.Publish(c, stream, rec)
	require.NoError(t, err)
	natstest.Purge(t, origin.JetStream(), lay.StreamName(stream), seq+1)
	_, err = origin.Publish(c, stream, rec)
	require.NoError(t, err)

	tc := startCluster(t, []string{"0-16383"}, func(c *Config) {
		c.Replication, c.Replicate.NATSURLs = ReplicationJetStream, []string{srv[0].ClientURL()}
	})
	rdb := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return rdb.Do(c, "BF.ADD", "probe", "x").Err() == nil }, time.Minute, 50*time.Millisecond,
		"the log takes writes on the streams without a gap")
	err = rdb.Do(c, "BF.ADD", "{g}k", "new").Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TRYAGAIN this node cannot apply the replication log now")
	assert.NotEqual(t, "0", logField(t, tc.srvs[0], stream, "stopped"), "the gap stops the stream")
	assert.Contains(t, logField(t, tc.srvs[0], stream, "error"), "entries missing after the applied position")
}

// A write's answer waits at most twice the lease TTL (DefaultLeaseTTL
// without failover), no longer a minute.
func TestReplicationWriteWait(t *testing.T) {
	for _, tc := range []struct{ ttl, want time.Duration }{{0, 2 * DefaultLeaseTTL}, {time.Second, 2 * time.Second}, {30 * time.Second, time.Minute}} {
		s := &Server{cfg: Config{Replicate: ReplicationConfig{LeaseTTL: tc.ttl}}}
		assert.Equal(t, tc.want, s.writeWait(), "--lease-ttl %v", tc.ttl)
	}
}
