package leasetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A Cuttable over the Embedded bucket times out Get, Create and Update
// while cut and reaches the bucket again once joined.
func TestCuttable(t *testing.T) {
	kv := &Cuttable{KV: Embedded(t, time.Minute)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kv.SetCut(true)
	_, err := kv.Get(ctx, "shard.a")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = kv.Create(ctx, "shard.a", []byte("n1"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = kv.Update(ctx, "shard.a", []byte("n1"), 1)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	kv.SetCut(false)
	var rev uint64
	require.Eventually(t, func() bool { // the bucket's stream elects its leader
		rev, err = kv.Create(ctx, "shard.a", []byte("n1"))
		return err == nil
	}, time.Minute, 100*time.Millisecond, "create: %v", err)
	_, err = kv.Update(ctx, "shard.a", []byte("n2"), rev)
	require.NoError(t, err)
	require.Eventually(t, func() bool { // a direct get may come from a replica behind the write
		e, err := kv.Get(ctx, "shard.a")
		return err == nil && string(e.Value()) == "n2"
	}, time.Minute, 50*time.Millisecond)
}
