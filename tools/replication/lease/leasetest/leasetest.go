// Package leasetest gives tests of lease's users a lease bucket: on an
// embedded 3-server cluster started for the test (Embedded), through one
// nats-server only (Pinned), or one the test cuts off as a partition
// from NATS would (Cuttable).
package leasetest

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/lease"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
)

// Bucket is the lease bucket's name in the tests.
const Bucket = "T_SHARDS"

// Embedded starts an embedded 3-server NATS cluster, stopped at the
// test's end, and opens the lease bucket of ttl on it (3 replicas).
func Embedded(t testing.TB, ttl time.Duration) lease.KV {
	t.Helper()
	natstest.RequireEmbedded(t)
	srvs, err := replication.StartLocalCluster(t.TempDir(), []string{"n1", "n2", "n3"})
	require.NoError(t, err)
	var urls []string
	for _, s := range srvs {
		urls = append(urls, s.ClientURL())
		t.Cleanup(s.Shutdown)
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return open(t, nc, ttl)
}

// Pinned opens the lease bucket of ttl (3 replicas) through the one
// nats-server at url: the client neither reconnects elsewhere nor
// learns other servers, so the node is cut off when that server is.
func Pinned(t testing.TB, url string, ttl time.Duration) lease.KV {
	t.Helper()
	nc, err := nats.Connect(url, nats.IgnoreDiscoveredServers(), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.PingInterval(time.Second), nats.Timeout(time.Second))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return open(t, nc, ttl)
}

// open opens Bucket on nc, retrying for up to a minute while the
// cluster elects its meta leader.
func open(t testing.TB, nc *nats.Conn, ttl time.Duration) lease.KV {
	t.Helper()
	var kv jetstream.KeyValue
	var err error
	require.Eventually(t, func() bool {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		kv, err = lease.OpenConn(c, nc, Bucket, ttl, 3)
		return err == nil
	}, time.Minute, 200*time.Millisecond, "lease bucket: %v", err)
	return kv
}

// Cuttable is a lease bucket that a test cuts off (SetCut), as a
// partition from NATS does: while cut, Get, Create and Update fail
// with context.DeadlineExceeded, as they would once their time is up.
type Cuttable struct {
	lease.KV
	cut atomic.Bool
}

// SetCut cuts c off (true) or joins it again (false).
func (c *Cuttable) SetCut(cut bool) { c.cut.Store(cut) }

// Get is the bucket's Get, or context.DeadlineExceeded while cut.
func (c *Cuttable) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if c.cut.Load() {
		return nil, context.DeadlineExceeded
	}
	return c.KV.Get(ctx, key)
}

// Create is the bucket's Create, or context.DeadlineExceeded while cut.
func (c *Cuttable) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	if c.cut.Load() {
		return 0, context.DeadlineExceeded
	}
	return c.KV.Create(ctx, key, value, opts...)
}

// Update is the bucket's Update, or context.DeadlineExceeded while cut.
func (c *Cuttable) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	if c.cut.Load() {
		return 0, context.DeadlineExceeded
	}
	return c.KV.Update(ctx, key, value, revision)
}
