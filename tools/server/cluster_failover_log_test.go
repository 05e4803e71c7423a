package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"

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
