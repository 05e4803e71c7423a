package replication

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// nodesBucket names the key-value bucket of the nodes (Layout.Bucket:
// PREFIX_NODES, MBF_NODES by default).
const nodesBucket = "NODES"

// Nodes is the key-value bucket where the nodes of a log publish what
// the others compare with their own (mmapbloom serve: a node's limits,
// key "limits.NODE"): one revision kept per key, on file, with the
// layout's replicas.
type Nodes struct {
	kv jetstream.KeyValue
}

// OpenNodes creates the nodes' bucket of l's layout on l's connection,
// or binds to it when it exists; it returns NATS's error, wrapped.
func OpenNodes(ctx context.Context, l *Log) (*Nodes, error) {
	name := l.Layout().Bucket(nodesBucket)
	js, err := jetstream.New(l.Conn())
	if err != nil {
		return nil, fmt.Errorf("replication: bucket %s: %w", name, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, History: 1,
		Replicas: l.Layout().Replicas, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("replication: bucket %s: %w", name, err)
	}
	return &Nodes{kv: kv}, nil
}

// Put writes value under key; it returns NATS's error as it is (the
// caller says what it was writing).
func (n *Nodes) Put(ctx context.Context, key string, value []byte) error {
	_, err := n.kv.Put(ctx, key, value)
	return err
}

// Get returns the value under key; it returns NATS's error as it is
// (jetstream.ErrKeyNotFound for a key never put; the caller says what
// it was reading).
func (n *Nodes) Get(ctx context.Context, key string) ([]byte, error) {
	e, err := n.kv.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return e.Value(), nil
}
