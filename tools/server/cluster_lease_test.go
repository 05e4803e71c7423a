package server

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/lease"
	"github.com/mmapbloom/mmapbloom/tools/replication/lease/leasetest"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepClock is a lease.Clock the test moves; a keeper's Run waits on
// After until the test fires it, so no round runs unless the test lets
// it (a paused process runs none either).
type stepClock struct {
	mu      sync.Mutex
	now     time.Time
	waiting []chan time.Time
}

func newStepClock() *stepClock { return &stepClock{now: time.Unix(1_700_000_000, 0)} }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiting = append(c.waiting, ch)
	return ch
}

// fire lets every keeper waiting on After run its next round.
func (c *stepClock) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.waiting {
		ch <- c.now
	}
	c.waiting = nil
}

// idle reports whether a keeper waits on After (no round in flight).
func (c *stepClock) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiting) > 0
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestFailoverPausedOwner: an owner whose keeper has not renewed its
// lease for TTL - TTL/4 (no round ran: a process stopped, then resumed)
// answers CLUSTERDOWN for the shard's keys, reads and writes, one
// command or a batch, never its filter's answer; once a round renewed
// the lease it serves them again.
func TestFailoverPausedOwner(t *testing.T) {
	const ttl = time.Minute // long: the injected clock, not the bucket's expiry, decides
	kv := leasetest.Embedded(t, ttl)
	clk := newStepClock()
	tc := startCluster(t, []string{"0-16383"}, func(c *Config) {
		c.Failover = &Failover{KV: kv, TTL: ttl, Clock: clk}
	})
	c := ctx(t)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool {
		clk.fire() // a round at a time: the first ones may time out on a cluster just formed
		return n1.Do(c, "BF.ADD", "k", "a").Err() == nil
	}, time.Minute, 50*time.Millisecond, "the node takes its shard")
	require.Eventually(t, clk.idle, time.Minute, 10*time.Millisecond, "the keeper waits for its next round")
	require.Equal(t, int64(1), n1.Do(c, "BF.EXISTS", "k", "a").Val(), "served under a lease renewed now")

	clk.advance(ttl - ttl/4) // no round ran meanwhile
	const down = "CLUSTERDOWN The cluster is down"
	for _, args := range [][]any{{"BF.EXISTS", "k", "a"}, {"BF.ADD", "k", "b"}, {"BF.MEXISTS", "k", "a", "b"}} {
		assert.Equal(t, down, errText(n1.Do(c, args...).Err()), "%v", args)
	}
	cmds, _ := n1.Pipelined(c, func(p redis.Pipeliner) error {
		p.Do(c, "BF.EXISTS", "k", "a")
		p.Do(c, "BF.EXISTS", "k", "a") // a batch of one key (bf_batch.go)
		p.Do(c, "BF.ADD", "k", "c")
		p.Do(c, "BF.ADD", "k", "d")
		return nil
	})
	for _, cmd := range cmds {
		assert.Equal(t, down, errText(cmd.Err()), "%v", cmd.Args())
	}

	clk.fire()
	require.Eventually(t, func() bool { return n1.Do(c, "BF.EXISTS", "k", "a").Val() == int64(1) },
		time.Minute, 20*time.Millisecond, "a renewal lets the owner serve again")
}

// TestFailoverConfirmReads: with ConfirmReads, a read of a shard held
// here answers only after a renewal of its lease that began after it:
// cut off from NATS, the owner answers reads CLUSTERDOWN at once, while
// its lease is still valid on its clock (writes are still served), and
// serves them again when it reaches NATS.
func TestFailoverConfirmReads(t *testing.T) {
	const ttl = time.Minute // long: the injected clock, not the bucket's expiry, decides
	kv := &leasetest.Cuttable{KV: leasetest.Embedded(t, ttl)}
	clk := newStepClock()
	tc := startCluster(t, []string{"0-16383"}, func(c *Config) {
		c.Failover = &Failover{KV: kv, TTL: ttl, Clock: clk, ConfirmReads: true}
	})
	c := ctx(t)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool {
		clk.fire()
		return n1.Do(c, "BF.ADD", "k", "a").Err() == nil
	}, time.Minute, 50*time.Millisecond, "the node takes its shard")
	require.Equal(t, int64(1), n1.Do(c, "BF.EXISTS", "k", "a").Val())

	kv.SetCut(true)
	const down = "CLUSTERDOWN The cluster is down"
	assert.Equal(t, down, errText(n1.Do(c, "BF.EXISTS", "k", "a").Err()))
	assert.Equal(t, down, errText(n1.Do(c, "BF.MEXISTS", "k", "a", "b").Err()))
	cmds, _ := n1.Pipelined(c, func(p redis.Pipeliner) error {
		p.Do(c, "BF.EXISTS", "k", "a")
		p.Do(c, "BF.EXISTS", "k", "a")
		return nil
	})
	for _, cmd := range cmds {
		assert.Equal(t, down, errText(cmd.Err()), "%v", cmd.Args())
	}
	assert.NoError(t, n1.Do(c, "BF.ADD", "k", "b").Err(), "a write checks the clock only")

	kv.SetCut(false)
	assert.Equal(t, []any{int64(1), int64(1)}, n1.Do(c, "BF.MEXISTS", "k", "a", "b").Val(),
		"confirmed again")
}

// BenchmarkLeaseCheck is the cost of the lease check of a keyed command
// on a shard served here: the first command of a pipeline reads the
// lease clock (pipeline=first), the others carry it on the observer's
// clock (pipeline=later). The lease is never held here (the check's cost
// does not depend on its answer).
func BenchmarkLeaseCheck(b *testing.B) {
	s := &Server{obs: newObserver(newCommandSet(commandTable())), failover: &failover{cfg: Failover{Clock: lease.RealClock{}}}}
	cs := &clusterState{leased: []leasedRange{{r: cluster.Range{Start: 0, End: 16383}, v: new(lease.Validity)}}}
	c := &client{s: s}
	for _, first := range []bool{true, false} {
		b.Run(fmt.Sprintf("pipeline=%s", map[bool]string{true: "first", false: "later"}[first]), func(b *testing.B) {
			for b.Loop() {
				c.lease.read = !first && c.lease.read
				_ = s.leaseLapsed(c, cs, 7629)
			}
		})
	}
}
