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
