package server

import (
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// RedisBloom tests/flow/test_overall.py: a NONSCALING filter of
// capacity 2 refuses a third new item (rebloom.c bfInsertCommon). The
// filter has a fixed seed (fixSeeds), so that x is not a false positive.
func TestNonScalingFull(t *testing.T) {
	s, addr := startServer(t, Config{})
	fixSeeds(t, s)
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
// NONSCALING filter as single BF.ADDs do, each on its own (a fixed
// seed: fixSeeds).
func TestNonScalingFullPipelined(t *testing.T) {
	s, addr := startServer(t, Config{})
	fixSeeds(t, s)
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

// TestFixSeeds: after fixSeeds, BF.RESERVE and BF.INSERT make the
// filters of fullShapes with fullShapesSeed, and other shapes with a
// random seed as before.
func TestFixSeeds(t *testing.T) {
	s, addr := startServer(t, Config{})
	fixSeeds(t, s)
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "two", "0.01", "2", "NONSCALING").Err())
	require.NoError(t, rdb.Do(c, "BF.INSERT", "three", "CAPACITY", "3", "ERROR", "0.01", "NONSCALING", "ITEMS", "a").Err())
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "four", "0.01", "4", "NONSCALING").Err())
	seed := func(key string) uint64 {
		f, err := mmapbloom.Open(filepath.Join(s.cfg.Dir, key+".bloom"), &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		defer f.Close()
		return f.Header().Seed
	}
	assert.Equal(t, uint64(fullShapesSeed), seed("two"))
	assert.Equal(t, uint64(fullShapesSeed), seed("three"))
	assert.NotEqual(t, uint64(fullShapesSeed), seed("four"), "a random seed (equal with probability 2^-64)")
}
