package lease

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MinTTL is the shortest lease TTL accepted: below it a renewal every
// TTL/4 would race the network round trip of the renewal itself.
const MinTTL = 200 * time.Millisecond

// OpenBucket creates the lease bucket on js, or binds to it when it
// exists, with entries expiring ttl after their last write (the
// bucket's MaxAge; nats-server 2.9 has no per-key TTL), one revision
// kept per key and the given number of stream replicas (1 to 5; 3 for a
// cluster of three nodes or more, so a lease survives one node's loss).
// A bucket that exists with another TTL is updated to ttl. It returns
// an error wrapping ErrBadConfig for a ttl under MinTTL or a replica
// count out of range, else NATS's error.
func OpenBucket(ctx context.Context, js jetstream.JetStream, bucket string, ttl time.Duration, replicas int) (jetstream.KeyValue, error) {
	if ttl < MinTTL || replicas < 1 || replicas > 5 {
		return nil, fmt.Errorf("%w: bucket %s: ttl %v (at least %v), replicas %d (1 to 5)", ErrBadConfig, bucket, ttl, MinTTL, replicas)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:   bucket,
		History:  1,
		TTL:      ttl,
		Replicas: replicas,
		Storage:  jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("lease: bucket %s: %w", bucket, err)
	}
	return kv, nil
}

// OpenConn is OpenBucket on the JetStream context of the connection nc
// (a replication log's Log.Conn).
func OpenConn(ctx context.Context, nc *nats.Conn, bucket string, ttl time.Duration, replicas int) (jetstream.KeyValue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("lease: bucket %s: %w", bucket, err)
	}
	return OpenBucket(ctx, js, bucket, ttl, replicas)
}
