package lease

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"
)

// KV is the part of a jetstream.KeyValue a Keeper uses (a bucket from
// OpenBucket satisfies it; tests wrap it to inject failures).
type KV interface {
	Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error)
	Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error)
	Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error)
	Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error
}
