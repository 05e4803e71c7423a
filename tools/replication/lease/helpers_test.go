package lease

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// manualClock is a Clock the test moves; After never fires (tests call
// Step themselves).
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newManualClock() *manualClock { return &manualClock{now: time.Unix(1_700_000_000, 0)} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(time.Duration) <-chan time.Time { return nil }

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// embedded is a 3-server NATS cluster in the test process.
type embedded []*replication.Embedded

// startEmbedded starts an embedded 3-server cluster on 127.0.0.1 and
// stops it at the test's end.
func startEmbedded(t *testing.T) embedded {
	t.Helper()
	natstest.RequireEmbedded(t)
	e, err := replication.StartLocalCluster(t.TempDir(), []string{"n1", "n2", "n3"})
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, s := range e {
			s.Shutdown()
		}
	})
	return e
}

// URLs returns the servers' client URLs, comma-separated.
func (e embedded) URLs() string {
	var urls []string
	for _, s := range e {
		urls = append(urls, s.ClientURL())
	}
	return strings.Join(urls, ",")
}

// openTestBucket connects to urls and opens the lease bucket, retrying
// while the cluster elects its meta leader.
func openTestBucket(t *testing.T, urls, bucket string, ttl time.Duration, replicas int) jetstream.KeyValue {
	t.Helper()
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	var kv jetstream.KeyValue
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		kv, err = OpenBucket(ctx, js, bucket, ttl, replicas)
		return err == nil
	}, 60*time.Second, 200*time.Millisecond, "open bucket: %v", err)
	require.Eventually(t, func() bool { // the bucket's stream takes writes (its leader elected)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = kv.Put(ctx, "probe", nil)
		return err == nil
	}, 60*time.Second, 200*time.Millisecond, "write to the bucket: %v", err)
	return kv
}

// newTestKeeper makes a keeper for node on kv following keys, on its own
// manual clock.
func newTestKeeper(t *testing.T, kv KV, node string, ttl time.Duration, keys ...Key) (*Keeper, *manualClock) {
	t.Helper()
	clk := newManualClock()
	k, err := NewKeeper(Config{KV: kv, Node: node, TTL: ttl, Keys: keys, Clock: clk})
	require.NoError(t, err)
	return k, clk
}

// holderInBucket reads key's holder from the bucket ("" when absent).
func holderInBucket(t *testing.T, kv KV, key string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e, err := kv.Get(ctx, key)
	if err != nil {
		require.ErrorIs(t, err, jetstream.ErrKeyNotFound)
		return ""
	}
	return string(e.Value())
}

// timerClock is a Clock the test moves whose After fires once the clock
// has been advanced past its deadline, so a keeper's Run does a round
// only when the test lets it.
type timerClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []timer
}

// timer is one After waiting on a timerClock.
type timer struct {
	at time.Time
	ch chan time.Time
}

func newTimerClock() *timerClock { return &timerClock{now: time.Unix(1_700_000_000, 0)} }

func (c *timerClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *timerClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, timer{c.now.Add(d), ch})
	return ch
}

// waiting is how many Afters have not fired yet.
func (c *timerClock) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// advance moves the clock by d and fires the timers due.
func (c *timerClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

// requireHolder waits until the bucket names want as key's holder: a
// Get may be answered by a replica of the bucket that has not stored
// the last write yet (KV buckets allow direct gets), so one read right
// after a write may be stale.
func requireHolder(t *testing.T, kv KV, key, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return holderInBucket(t, kv, key) == want }, 20*time.Second, 50*time.Millisecond,
		"%s held by %q", key, want)
}
