package server

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestTxPipeline: go-redis's TxPipeline (MULTI ... EXEC, as redis-py's
// default pipeline sends) runs BF.* commands and answers each in order;
// queued BF.ADD runs are not batched out of the transaction.
func TestTxPipeline(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFReserveNonScaling(c, "tx", 0.001, 10_000).Err())
	pipe := rdb.TxPipeline()
	a1 := pipe.BFAdd(c, "tx", "a")
	a2 := pipe.BFAdd(c, "tx", "a")
	ex := pipe.BFExists(c, "tx", "a")
	card := pipe.BFCard(c, "tx")
	_, err := pipe.Exec(c)
	require.NoError(t, err)
	require.True(t, a1.Val())
	require.False(t, a2.Val())
	require.True(t, ex.Val())
	require.EqualValues(t, 1, card.Val())
}

// TestMultiErrors: Redis's replies for transactions used wrongly, and a
// command refused while queueing aborts the whole EXEC with nothing run.
func TestMultiErrors(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	conn := rdb.Conn()
	defer conn.Close()
	do := func(args ...any) *redis.Cmd { return conn.Do(c, args...) }
	require.EqualError(t, do("EXEC").Err(), "ERR EXEC without MULTI")
	require.EqualError(t, do("DISCARD").Err(), "ERR DISCARD without MULTI")
	require.Equal(t, "OK", do("MULTI").Val())
	require.EqualError(t, do("MULTI").Err(), "ERR MULTI calls can not be nested")
	require.Equal(t, "QUEUED", do("BF.ADD", "m", "x").Val())
	require.ErrorContains(t, do("BF.ADD", "m").Err(), "ERR wrong number of arguments for 'bf.add' command")
	require.EqualError(t, do("EXEC").Err(), "EXECABORT Transaction discarded because of previous errors.")
	require.EqualValues(t, 0, do("EXISTS", "m").Val(), "nothing ran")
	require.Equal(t, "OK", do("MULTI").Val())
	require.Equal(t, "QUEUED", do("BF.ADD", "m", "x").Val())
	require.Equal(t, "OK", do("DISCARD").Val())
	require.EqualValues(t, 0, do("EXISTS", "m").Val(), "discarded")
}
