package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// TestClusterTxCrossSlot: a transaction whose queued commands lie in
// different slots of this node is refused at EXEC with Redis Cluster's
// CROSSSLOT (redis-server 7.0.15 in cluster mode: MULTI, SET a, SET b,
// EXEC gives "CROSSSLOT Keys in request don't hash to the same slot" and
// runs nothing), and the transaction is over; one slot runs as before.
// Before, EXEC ran both commands.
func TestClusterTxCrossSlot(t *testing.T) {
	tc := startCluster(t, []string{"0-16383"})
	rdb, c := dial(t, tc.addrs[0], ""), ctx(t)
	conn := rdb.Conn()
	defer conn.Close()
	a, b := "a", "b"
	require.NotEqual(t, cluster.KeySlot([]byte(a)), cluster.KeySlot([]byte(b)))
	require.Equal(t, "OK", conn.Do(c, "MULTI").Val())
	require.Equal(t, "QUEUED", conn.Do(c, "BF.ADD", a, "x").Val())
	require.Equal(t, "QUEUED", conn.Do(c, "BF.ADD", b, "x").Val())
	assert.EqualError(t, conn.Do(c, "EXEC").Err(), "CROSSSLOT Keys in request don't hash to the same slot")
	assert.EqualValues(t, 0, conn.Do(c, "EXISTS", a).Val(), "nothing ran")
	assert.EqualError(t, conn.Do(c, "EXEC").Err(), "ERR EXEC without MULTI", "the transaction is over")

	require.Equal(t, "OK", conn.Do(c, "MULTI").Val())
	require.Equal(t, "QUEUED", conn.Do(c, "BF.ADD", "{a}1", "x").Val())
	require.Equal(t, "QUEUED", conn.Do(c, "PING").Val())
	require.Equal(t, "QUEUED", conn.Do(c, "BF.ADD", "{a}2", "x").Val())
	got, err := conn.Do(c, "EXEC").Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{int64(1), "PONG", int64(1)}, got)
}
