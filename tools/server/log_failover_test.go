package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
	"github.com/redis/go-redis/v9"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowApplier counts the adds it applies, each after a pause, so a
// drain that did not wait for them would see fewer.
type slowApplier struct{ adds atomic.Int64 }

func (a *slowApplier) Apply(_ int, _ uint64, _ string, recs []replication.Record, _ []any) error {
	for range recs {
		time.Sleep(2 * time.Millisecond)
		a.adds.Add(1)
	}
	return nil
}

func (a *slowApplier) Sync(int) error { return nil }

func (a *slowApplier) Bootstrap(context.Context, int) (uint64, error) { return 0, nil }

// TestLogDrain: the Drain of a replication log returns once the node has
// applied every entry its shard's streams held at the call.
func TestLogDrain(t *testing.T) {
	natstest.RequireEmbedded(t)
	srvs, err := replication.StartLocalCluster(t.TempDir(), []string{"n1", "n2", "n3"})
	require.NoError(t, err)
	var urls []string
	for _, s := range srvs {
		urls = append(urls, s.ClientURL())
		t.Cleanup(s.Shutdown)
	}
	lay := replication.Layout{Streams: 4, Replicas: 3}
	open := func(node string) *replication.Log {
		l, err := replication.Open(replication.Config{URLs: urls, Node: node, Layout: lay, Dir: t.TempDir()})
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		return l
	}
	pub, follower := open("p"), open("f")
	const n = 300
	c := ctx(t)
	for i := range n {
		_, err := pub.Publish(c, 1, replication.Record{Op: replication.OpAdd, Fields: [][]byte{[]byte("k"), fmt.Appendf(nil, "%d", i)}})
		require.NoError(t, err)
	}
	a := &slowApplier{}
	follower.Follow([]int{1}, a)
	first, last := lay.SlotsOf(1)
	require.NoError(t, LogDrain(follower)(c, []cluster.Range{{Start: first, End: last}}))
	require.Equal(t, int64(n), a.adds.Load(), "drained: every entry applied")

	short, cancel := context.WithTimeout(c, time.Millisecond)
	defer cancel()
	<-short.Done()
	err = LogDrain(follower)(short, []cluster.Range{{Start: 0, End: 10}})
	require.Error(t, err, "stream 0 is not followed here, and the context is over")
	require.True(t, strings.Contains(err.Error(), "MBF_LOG_00"), err.Error())
}

// failingApplier fails every Apply while broken is set, as a node past
// --disk-reserve does.
type failingApplier struct {
	slowApplier
	broken atomic.Bool
}

func (a *failingApplier) Apply(stream int, seq uint64, origin string, recs []replication.Record, results []any) error {
	if a.broken.Load() {
		return errors.New("no space left on device")
	}
	return a.slowApplier.Apply(stream, seq, origin, recs, results)
}

// TestLogApplying: a node whose log of a shard's stream is stopped on
// an apply error is not eligible for the shard's lease (Failover's
// Applying, lease.Key.Eligible) until it applies again; other shards'
// streams are not concerned.
func TestLogApplying(t *testing.T) {
	natstest.RequireEmbedded(t)
	srvs, err := replication.StartLocalCluster(t.TempDir(), []string{"n1"})
	require.NoError(t, err)
	t.Cleanup(srvs[0].Shutdown)
	lay := replication.Layout{Streams: 4, Replicas: 1}
	open := func(node string) *replication.Log {
		l, err := replication.Open(replication.Config{URLs: []string{srvs[0].ClientURL()}, Node: node, Layout: lay, Dir: t.TempDir()})
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		return l
	}
	pub, follower := open("p"), open("f")
	a := &failingApplier{}
	a.broken.Store(true)
	follower.Follow([]int{1, 2}, a)
	shard := func(st int) []cluster.Range {
		first, last := lay.SlotsOf(st)
		return []cluster.Range{{Start: first, End: last}}
	}
	applying := LogApplying(follower)
	require.True(t, applying(shard(1)), "nothing to apply yet")
	c := ctx(t)
	seq, err := pub.Publish(c, 1, replication.Record{Op: replication.OpAdd, Fields: [][]byte{[]byte("k"), []byte("a")}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !applying(shard(1)) }, time.Minute, 20*time.Millisecond, "stopped: not eligible")
	assert.True(t, applying(shard(2)), "another shard's stream applies")
	a.broken.Store(false)
	require.NoError(t, follower.WaitApplied(c, 1, seq))
	assert.True(t, applying(shard(1)), "applying again: eligible")
}

// TestFailoverOwnerStoppedOnApplyError: three nodes on the log with
// failover, node1 the owner. node1's directory goes past --disk-reserve
// and a write creating a key fails there: its stream stops, it gives
// its lease up and does not take it back while stopped, a replica
// serves the slots, and every acknowledged add answers present there
// and, once node1's disk is freed and it applied the log, on node1.
// The write node1 could not apply is answered TRYAGAIN there at once.
func TestFailoverOwnerStoppedOnApplyError(t *testing.T) {
	testkit.Nemesis(t)
	natstest.RequireEmbedded(t)
	dir := testkit.SmallFS(t, "16m")
	srvs, err := replication.StartLocalCluster(t.TempDir(), []string{"n1", "n2", "n3"})
	require.NoError(t, err)
	for _, s := range srvs {
		t.Cleanup(s.Shutdown)
	}
	tc := startCluster(t, []string{"0-16383", "replica-of node1", "replica-of node1"}, func(c *Config) {
		i, err := strconv.Atoi(strings.TrimPrefix(c.NodeID, "node"))
		require.NoError(t, err)
		c.Replication, c.Replicate.NATSURLs = ReplicationJetStream, []string{srvs[i-1].ClientURL()}
		c.Replicate.Streams, c.Replicate.LeaseTTL = 4, 3*time.Second
		if c.NodeID == "node1" {
			c.Dir, c.Limits.DiskReserve = dir, 8<<20
		}
	})
	c := ctx(t)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return n1.Do(c, "BF.ADD", "{t}a", "a0").Err() == nil }, 2*time.Minute, 50*time.Millisecond,
		"node1 serves its slots")
	acked := []string{"a0"}
	stream := replication.Layout{Streams: 4}.StreamOf(cluster.KeySlot([]byte("{t}a")))

	ballast := fillDisk(t, dir, 4<<20)
	err = n1.Do(c, "BF.ADD", "{t}new", "x").Err() // published; its create fails on node1
	require.ErrorContains(t, err, "TRYAGAIN this node cannot apply the replication log now", "answered at once, not after a minute")
	require.ErrorContains(t, err, "--disk-reserve")
	owner := waitNewOwner(t, c, tc)
	assert.Regexp(t, `^[1-9][0-9]*$`, logField(t, tc.srvs[0], stream, "stopped"))
	for range 8 { // two lease TTLs: node1, the config's (preferred) owner, does not take the free lease back
		require.False(t, tc.srvs[0].failover.holds("node1"), "node1 is stopped on its log of the shard")
		time.Sleep(250 * time.Millisecond)
	}

	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tc.addrs, MaxRedirects: 16,
		DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, ClusterStateReloadInterval: time.Second})
	t.Cleanup(func() { _ = cc.Close() })
	for i := 1; i <= 20; i++ {
		item := fmt.Sprint("a", i)
		require.NoError(t, cc.Do(c, "BF.ADD", "{t}a", item).Err(), "served by %s", owner)
		acked = append(acked, item)
	}
	byOwner := dial(t, tc.addrs[slices.Index(tc.ids, owner)], "")
	for _, it := range acked {
		assert.True(t, byOwner.BFExists(c, "{t}a", it).Val(), "%s answers acknowledged add %s present", owner, it)
	}
	assert.True(t, byOwner.BFExists(c, "{t}new", "x").Val(), "the record node1 could not apply is applied by the new owner")

	require.NoError(t, os.Remove(ballast))
	require.Eventually(t, func() bool { return logField(t, tc.srvs[0], stream, "stopped") == "0" }, time.Minute, 50*time.Millisecond,
		"node1 applies the record once its disk is freed")
	last, err := tc.srvs[0].repl.log().LastSeq(c, stream)
	require.NoError(t, err)
	require.NoError(t, tc.srvs[0].repl.log().WaitApplied(c, stream, last))
	conn := n1.Conn()
	t.Cleanup(func() { _ = conn.Close() })
	require.NoError(t, conn.ReadOnly(c).Err())
	for _, it := range append(acked, "x") {
		key := map[bool]string{true: "{t}new", false: "{t}a"}[it == "x"]
		assert.True(t, conn.BFExists(c, key, it).Val(), "node1 answers %s %s present", key, it)
	}
}
