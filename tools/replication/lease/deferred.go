package lease

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// Deferred is a KV whose bucket is opened at its first use, and again
// at the next use after an open failed: the lease bucket of a node
// whose Keeper starts before its NATS connection exists (mmapbloom
// serve's failover starts before the replication log has connected).
// Until an open succeeds, each operation returns the open's error.
type Deferred struct {
	open func(ctx context.Context) (KV, error)
	mu   sync.Mutex
	kv   KV
}

// NewDeferred returns a Deferred opening its bucket with open (OpenConn
// on the connection, once there is one).
func NewDeferred(open func(ctx context.Context) (KV, error)) *Deferred {
	return &Deferred{open: open}
}

// bucket returns the bucket, opening it if no open succeeded yet.
func (d *Deferred) bucket(ctx context.Context) (KV, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.kv == nil {
		kv, err := d.open(ctx)
		if err != nil {
			return nil, err
		}
		d.kv = kv
	}
	return d.kv, nil
}

// Get is KV's Get on the bucket.
func (d *Deferred) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	kv, err := d.bucket(ctx)
	if err != nil {
		return nil, err
	}
	return kv.Get(ctx, key)
}

// Create is KV's Create on the bucket.
func (d *Deferred) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	kv, err := d.bucket(ctx)
	if err != nil {
		return 0, err
	}
	return kv.Create(ctx, key, value, opts...)
}

// Update is KV's Update on the bucket.
func (d *Deferred) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	kv, err := d.bucket(ctx)
	if err != nil {
		return 0, err
	}
	return kv.Update(ctx, key, value, revision)
}

// Delete is KV's Delete on the bucket.
func (d *Deferred) Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	kv, err := d.bucket(ctx)
	if err != nil {
		return err
	}
	return kv.Delete(ctx, key, opts...)
}
