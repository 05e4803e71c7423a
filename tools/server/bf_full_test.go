package server

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/stretchr/testify/require"
)

// RedisBloom tests/flow/test_overall.py: a NONSCALING filter of
// capacity 2 refuses a third new item (rebloom.c bfInsertCommon).
func TestNonScalingFull(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb := dial(t, addr, "")
	c := ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "f", "0.01", "2", "NONSCALING").Err())
	require.NoError(t, rdb.Do(c, "BF.MADD", "f", "a", "b").Err())
	require.EqualError(t, rdb.Do(c, "BF.ADD", "f", "x").Err(), "ERR non scaling filter is full")
	v, err := rdb.Do(c, "BF.ADD", "f", "a").Int()
	require.NoError(t, err)
	require.Equal(t, 0, v)
	res, err := rdb.Do(c, "BF.MADD", "f", "a", "y", "z").Slice()
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.Equal(t, int64(0), res[0])
	require.EqualError(t, res[1].(error), "ERR non scaling filter is full")
}

// TestNonScalingFullPipelined: a run of pipelined BF.ADDs on one key,
// answered by one batch call (execBatch), refuses the new items of a full
// NONSCALING filter as single BF.ADDs do, each on its own.
func TestNonScalingFullPipelined(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb := dial(t, addr, "")
	c := ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "f", "0.01", "3", "NONSCALING").Err())
	pipe := rdb.Pipeline()
	cmds := []*redis.Cmd{}
	for _, item := range []string{"a", "b", "c", "x", "a", "y"} {
		cmds = append(cmds, pipe.Do(c, "BF.ADD", "f", item))
	}
	_, _ = pipe.Exec(c)
	for i, want := range []int64{1, 1, 1, -1, 0, -1} {
		if want < 0 {
			require.EqualError(t, cmds[i].Err(), "ERR non scaling filter is full", "item %d", i)
			continue
		}
		v, err := cmds[i].Int64()
		require.NoError(t, err, "item %d", i)
		require.Equal(t, want, v, "item %d", i)
	}
}
