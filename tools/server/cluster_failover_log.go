package server

import (
	"context"
	"fmt"
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

// LogFailover returns the Failover of a node whose writes go through the
// replication log l: leases in lease.DefaultBucket on l's NATS
// connection, with l's stream replicas, and a shard taken over served
// once l has applied, for every stream holding its slots, everything
// the stream held when the shard was taken.
func LogFailover(ctx context.Context, l *replication.Log, ttl time.Duration) (*Failover, error) {
	kv, err := lease.OpenConn(ctx, l.Conn(), lease.DefaultBucket, ttl, l.Layout().Replicas)
	if err != nil {
		return nil, err
	}
	return &Failover{KV: kv, TTL: ttl, Drain: LogDrain(l)}, nil
}

// LogDrain returns a Failover.Drain waiting until l has applied the
// streams holding the given slots up to their last sequences at the
// call (replication.Log.DrainToLast), one stream after the other.
func LogDrain(l *replication.Log) func(context.Context, []cluster.Range) error {
	return func(ctx context.Context, slots []cluster.Range) error {
		lay := l.Layout()
		for _, r := range slots {
			for st := lay.StreamOf(r.Start); st <= lay.StreamOf(r.End); st++ {
				if _, err := l.DrainToLast(ctx, st); err != nil {
					return fmt.Errorf("failover: drain %s: %w", replication.StreamName(st), err)
				}
			}
		}
		return nil
	}
}
