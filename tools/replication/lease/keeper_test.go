package lease

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testTTL = time.Second

// failover is the scenario every server version must pass: a preferred
// node takes a free lease at once, renews it by CAS, stops renewing
// (as a killed node does); once the entry expired on the server exactly
// one of two racing candidates takes it, the other sees the winner, and
// the old holder finds its lease lost when it comes back.
func failover(t *testing.T, kv jetstream.KeyValue) {
	ctx := context.Background()
	key := Key{Name: "shard.a", Candidate: true}
	a, aClk := newTestKeeper(t, kv, "a", testTTL, Key{Name: key.Name, Candidate: true, Preferred: true})
	b, bClk := newTestKeeper(t, kv, "b", testTTL, key)
	c, cClk := newTestKeeper(t, kv, "c", testTTL, key)
	b.Step(ctx)
	require.Equal(t, View{"shard.a": ""}, b.View(), "b is no preferred node: it waits one TTL before taking a free lease")
	// Each bucket operation is bounded by one Tick (250 ms here), which a
	// loaded machine can miss on a cluster just formed: a round that did
	// not take or renew is tried again, as Run would at its next tick.
	require.Eventually(t, func() bool { a.Step(ctx); return a.Holds("shard.a") }, time.Minute, 10*time.Millisecond)
	rev := a.held["shard.a"].rev
	aClk.advance(a.Tick())
	require.Eventually(t, func() bool { a.Step(ctx); return a.held["shard.a"].rev > rev }, time.Minute, 10*time.Millisecond,
		"a renewal writes a new revision")
	b.Step(ctx)
	require.Equal(t, View{"shard.a": "a"}, b.View())

	// a stops renewing; the entry expires on the server after its TTL.
	require.Eventually(t, func() bool { return holderInBucket(t, kv, "shard.a") == "" }, 60*time.Second, 50*time.Millisecond)
	bClk.advance(testTTL)
	cClk.advance(testTTL)
	winner := race(t, "shard.a", map[string]*Keeper{"b": b, "c": c})
	requireHolder(t, kv, "shard.a", winner)
	for _, k := range []*Keeper{b, c} { // a read may be stale for a moment (helpers_test.go)
		require.Eventually(t, func() bool { k.Step(ctx); return k.View()["shard.a"] == winner }, 20*time.Second, 50*time.Millisecond)
	}

	// a's CAS on the old revision fails: its lease is lost at the first
	// round whose Update is answered within its bound (500 ms here: the
	// rest of its validity on a's clock), and it then reads the winner
	// within a Tick. A loaded machine can miss either bound: the rounds
	// are tried again, as Run would.
	aClk.advance(a.Tick())
	require.Eventually(t, func() bool { a.Step(ctx); return !a.Holds("shard.a") }, time.Minute, 50*time.Millisecond,
		"a's renewal on the old revision fails")
	require.Eventually(t, func() bool { a.Step(ctx); return a.View()["shard.a"] == winner }, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, View{"shard.a": winner}, a.View())
}

// race steps the candidates (by node) at once, round after round, until
// one holds the free lease name, and returns that node; no round may
// leave two holders. A round's read or take is bounded by one Tick (250
// ms here), which a loaded machine can miss: a take answered late
// leaves the winner's name in the bucket, and the winner takes the
// lease back at its next round (TestFailoverTakeAnsweredLate). The
// rounds are paced 10 ms apart and bounded by a minute.
func race(t *testing.T, name string, candidates map[string]*Keeper) string {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		var wg sync.WaitGroup
		for _, k := range candidates {
			wg.Go(func() { k.Step(context.Background()) })
		}
		wg.Wait()
		var holders []string
		for node, k := range candidates {
			if k.Holds(name) {
				holders = append(holders, node)
			}
		}
		require.LessOrEqual(t, len(holders), 1, "exactly one candidate takes the lease: %v", holders)
		if len(holders) == 1 {
			return holders[0]
		}
		require.True(t, time.Now().Before(end), "no candidate took the free lease in a minute")
	}
}

// lateKV stores its first Create in the bucket but answers it only once
// the operation's context has ended, as a loaded machine answers a take
// past its Tick.
type lateKV struct {
	KV
	answered atomic.Bool
}

func (l *lateKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	rev, err := l.KV.Create(ctx, key, value, opts...)
	if err != nil || l.answered.Swap(true) {
		return rev, err
	}
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestFailoverTakeAnsweredLate: two candidates race for a free lease
// and the take that won is answered after its Tick: the winner takes
// its lease back at its next round (its name is in the bucket), the
// other sees it, and never do both hold it.
func TestFailoverTakeAnsweredLate(t *testing.T) {
	e := startEmbedded(t)
	kv := openTestBucket(t, e.URLs(), "T_LATE", testTTL, 3)
	key := Key{Name: "shard.l", Candidate: true}
	b, bClk := newTestKeeper(t, &lateKV{KV: kv}, "b", testTTL, key)
	c, cClk := newTestKeeper(t, &lateKV{KV: kv}, "c", testTTL, key)
	bClk.advance(testTTL) // candidates that are not preferred wait one TTL
	cClk.advance(testTTL)
	winner := race(t, key.Name, map[string]*Keeper{"b": b, "c": c})
	requireHolder(t, kv, key.Name, winner)
}

func TestFailoverEmbeddedCluster(t *testing.T) {
	e := startEmbedded(t)
	failover(t, openTestBucket(t, e.URLs(), "T_FAILOVER", testTTL, 3))
}

func TestFailoverDebianNATSServer(t *testing.T) {
	p := natstest.StartProcesses(t, 3)
	failover(t, openTestBucket(t, p.URLs(), "T_FAILOVER", testTTL, 3))
}

// release: a holder stopping cleanly deletes its lease at its revision,
// and a candidate takes it at once, without waiting for the TTL.
func release(t *testing.T, kv jetstream.KeyValue) {
	ctx := context.Background()
	a, _ := newTestKeeper(t, kv, "a", time.Minute, Key{Name: "shard.r", Candidate: true, Preferred: true})
	b, bClk := newTestKeeper(t, kv, "b", time.Minute, Key{Name: "shard.r", Candidate: true})
	// A step is one attempt: on a cluster just formed, its first reads
	// and writes may time out, so each take is retried (the clocks stay;
	// b for less than the 1-minute TTL, after which the bucket itself
	// would free the lease).
	require.Eventually(t, func() bool { a.Step(ctx); return a.Holds("shard.r") }, time.Minute, 50*time.Millisecond)
	a.Release(ctx)
	require.False(t, a.Holds("shard.r"))
	bClk.advance(time.Minute)
	require.Eventually(t, func() bool { b.Step(ctx); return b.Holds("shard.r") }, 20*time.Second, 50*time.Millisecond, // well within the TTL
		"a released lease is free before its TTL")
	a.Release(ctx) // holds nothing: b's lease stays
	requireHolder(t, kv, "shard.r", "b")
}

func TestReleaseEmbeddedCluster(t *testing.T) {
	e := startEmbedded(t)
	release(t, openTestBucket(t, e.URLs(), "T_RELEASE", time.Minute, 3))
}

func TestReleaseDebianNATSServer(t *testing.T) {
	p := natstest.StartProcesses(t, 3)
	release(t, openTestBucket(t, p.URLs(), "T_RELEASE", time.Minute, 3))
}
