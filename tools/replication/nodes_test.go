package replication

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What one node puts in the nodes' bucket (PREFIX_NODES, with the
// layout's prefix and replicas) another reads; a key never put reads
// as jetstream.ErrKeyNotFound; opening a bucket that exists binds it.
func TestNodes(t *testing.T) {
	_, urls := cluster(t, 1)
	layout := Layout{Streams: 1, Replicas: 1, Prefix: "NT"}
	ctx := ctxT(t, 2*time.Minute)
	var nodes []*Nodes
	for i := range 2 {
		l := openLog(t, urls[0], fmt.Sprintf("n%d", i+1), layout, t.TempDir(), nil)
		n, err := OpenNodes(ctx, l)
		require.NoError(t, err)
		nodes = append(nodes, n)
	}
	require.NoError(t, nodes[0].Put(ctx, "limits.n1", []byte("max-layers=4")))
	got, err := nodes[1].Get(ctx, "limits.n1")
	require.NoError(t, err)
	assert.Equal(t, "max-layers=4", string(got))
	_, err = nodes[1].Get(ctx, "limits.n2")
	require.ErrorIs(t, err, jetstream.ErrKeyNotFound)

	js, err := jetstream.New(openLog(t, urls[0], "n3", layout, t.TempDir(), nil).Conn())
	require.NoError(t, err)
	kv, err := js.KeyValue(ctx, "NT_NODES")
	require.NoError(t, err)
	status, err := kv.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), status.History())
}
