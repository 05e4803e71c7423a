package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/lease"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// DefaultLeaseTTL is the lease TTL of serve's failover (--lease-ttl): a
// shard whose owner stops renewing moves after at most TTL + TTL/4 plus
// the time to drain its log, and NATS's own leader elections (4 to 9 s
// when the killed node led the lease bucket's or a stream's Raft group).
const DefaultLeaseTTL = 5 * time.Second

// logFollowers is how many primaries after a shard's in the config file
// apply its log besides its owner (the log's replicas, min(3, nodes),
// minus one): with the log they may take the shard over.
const logFollowers = 2

// leasesBucket names the key-value bucket of the leases
// (replication.Layout.Bucket: PREFIX_LEASES, MBF_LEASES by default).
const leasesBucket = "LEASES"

// logLeases is a replication log given later (attach) and the lease
// bucket (leasesBucket) on its NATS connection, opened at its first use
// once the log is open: a Failover's KV before the log exists.
type logLeases struct {
	mu  sync.Mutex
	log *replication.Log
}

// logFailover returns the Failover of a node whose writes go through a
// replication log given later to leases.attach: leases of ttl in
// leasesBucket with the log's stream replicas, a shard taken
// over served once the log has applied, for every stream holding its
// slots, everything the stream held when the shard was taken, and its
// lease neither taken nor kept while one of them is stopped here on an
// apply error (LogApplying); confirm is Failover.ConfirmReads.
func logFailover(ttl time.Duration, confirm bool) (*Failover, *logLeases) {
	b := &logLeases{}
	kv := lease.NewDeferred(func(ctx context.Context) (lease.KV, error) {
		l, err := b.opened()
		if err != nil {
			return nil, err
		}
		return lease.OpenConn(ctx, l.Conn(), l.Layout().Bucket(leasesBucket), ttl, l.Layout().Replicas)
	})
	drain := func(ctx context.Context, slots []cluster.Range) error {
		l, err := b.opened()
		if err != nil {
			return err
		}
		return LogDrain(l)(ctx, slots)
	}
	applying := func(slots []cluster.Range) bool {
		l, err := b.opened()
		return err == nil && LogApplying(l)(slots)
	}
	return &Failover{KV: kv, TTL: ttl, Drain: drain, Applying: applying, ConfirmReads: confirm}, b
}

// attach gives b the open log.
func (b *logLeases) attach(l *replication.Log) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = l
}

// opened returns the log, or errLogNotReady before attach.
func (b *logLeases) opened() (*replication.Log, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.log == nil {
		return nil, errLogNotReady
	}
	return b.log, nil
}

// LogDrain returns a Failover.Drain waiting until l has applied the
// streams holding the given slots up to their last sequences at the
// call (replication.Log.DrainToLast), one stream after the other.
func LogDrain(l *replication.Log) func(context.Context, []cluster.Range) error {
	return func(ctx context.Context, slots []cluster.Range) error {
		for _, st := range logStreams(l.Layout(), slots) {
			if _, err := l.DrainToLast(ctx, st); err != nil {
				return fmt.Errorf("failover: drain %s: %w", l.Layout().StreamName(st), err)
			}
		}
		return nil
	}
}

// LogApplying returns a Failover.Applying: true when l has no stream
// holding the given slots stopped on an apply error
// (replication.Log.Stopped).
func LogApplying(l *replication.Log) func([]cluster.Range) bool {
	return func(slots []cluster.Range) bool {
		for _, st := range logStreams(l.Layout(), slots) {
			if l.Stopped(st) != 0 {
				return false
			}
		}
		return true
	}
}

// logStreams are the streams holding slots, in order (a stream once
// per range).
func logStreams(lay replication.Layout, slots []cluster.Range) []int {
	var out []int
	for _, r := range slots {
		for st := lay.StreamOf(r.Start); st <= lay.StreamOf(r.End); st++ {
			out = append(out, st)
		}
	}
	return out
}
