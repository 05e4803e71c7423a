package server

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoRedisHelpers drives every go-redis BF helper and checks each
// reply's type and value, in RESP2 and in RESP3.
func TestGoRedisHelpers(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) { goRedisHelpers(t, proto) })
	}
}

func goRedisHelpers(t *testing.T, proto int) {
	_, addr := startServer(t, Config{})
	rdb, c := dialProto(t, addr, "", proto), ctx(t)

	require.Equal(t, "OK", rdb.BFReserveNonScaling(c, "fixed", 0.01, 1000).Val())
	require.Equal(t, "OK", rdb.BFReserveWithArgs(c, "fixed2", &redis.BFReserveOptions{Error: 0.001, Capacity: 500, NonScaling: true}).Val())
	require.Equal(t, "OK", rdb.BFReserveExpansion(c, "fixed3", 0.01, 100, 0).Val(), "EXPANSION 0 is nonscaling")

	added, err := rdb.BFAdd(c, "fixed", "a").Result()
	require.NoError(t, err)
	assert.True(t, added)
	assert.False(t, rdb.BFAdd(c, "fixed", "a").Val())

	madd, err := rdb.BFMAdd(c, "fixed", "a", "b", "c", "b").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, true, false}, madd)

	ins, err := rdb.BFInsert(c, "ins", &redis.BFInsertOptions{Capacity: 1000, Error: 0.001, NonScaling: true}, "x", "y", "x").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true, false}, ins)
	_, err = rdb.BFInsert(c, "nokey", &redis.BFInsertOptions{NoCreate: true}, "x").Result()
	require.EqualError(t, err, "ERR not found")

	assert.True(t, rdb.BFExists(c, "fixed", "b").Val())
	assert.False(t, rdb.BFExists(c, "fixed", "zz").Val())
	ex, err := rdb.BFExists(c, "missing", "b").Result()
	require.NoError(t, err, "a missing key answers 0, never an error")
	assert.False(t, ex)
	mex, err := rdb.BFMExists(c, "fixed", "a", "zz", "c").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false, true}, mex)
	mex, err = rdb.BFMExists(c, "missing", "a", "b").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false}, mex)

	card, err := rdb.BFCard(c, "fixed").Result()
	require.NoError(t, err)
	assert.EqualValues(t, 3, card)
	assert.EqualValues(t, 0, rdb.BFCard(c, "missing").Val())

	// A fixed filter's Expansion rate is nil, as in RedisBloom, which
	// go-redis's BFInfo answers with redis.Nil; the other fields read.
	_, err = rdb.BFInfo(c, "fixed").Result()
	require.ErrorIs(t, err, redis.Nil)
	require.Equal(t, "OK", rdb.BFReserve(c, "scaling", 0.01, 1000).Val())
	require.Equal(t, []bool{true, true, true}, rdb.BFMAdd(c, "scaling", "a", "b", "c").Val())
	info, err := rdb.BFInfo(c, "scaling").Result()
	require.NoError(t, err)
	assert.Equal(t, redis.BFInfo{Capacity: 1000, Size: info.Size, Filters: 1, ItemsInserted: 3, ExpansionRate: 2}, info)
	assert.Greater(t, info.Size, int64(1000))
	capInfo, err := rdb.BFInfoCapacity(c, "fixed").Result()
	require.NoError(t, err)
	assert.EqualValues(t, 1000, capInfo.Capacity)
	assert.EqualValues(t, info.Size, rdb.BFInfoSize(c, "scaling").Val().Size)
	assert.EqualValues(t, 1, rdb.BFInfoFilters(c, "fixed").Val().Filters)
	assert.EqualValues(t, 3, rdb.BFInfoItems(c, "fixed").Val().ItemsInserted)
	_, err = rdb.BFInfoExpansion(c, "fixed").Result()
	require.ErrorIs(t, err, redis.Nil)
	_, err = rdb.BFInfo(c, "missing").Result()
	require.EqualError(t, err, "ERR not found")

	// BF.ADD on a missing key creates it with the server's defaults.
	assert.True(t, rdb.BFAdd(c, "auto", "k").Val())
	assert.EqualValues(t, DefaultCapacity, rdb.BFInfoCapacity(c, "auto").Val().Capacity)
}

// TestScanDumpLoadChunk copies a filter with BF.SCANDUMP and BF.LOADCHUNK
// into a second server: every key added is present there, with the count.
func TestScanDumpLoadChunk(t *testing.T) {
	_, a1 := startServer(t, Config{})
	_, a2 := startServer(t, Config{})
	src, dst, c := dial(t, a1, ""), dial(t, a2, ""), ctx(t)
	require.NoError(t, src.BFReserveNonScaling(c, "big", 0.001, 3_000_000).Err()) // 5.4 MB: two chunks
	keys := make([]any, 5000)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%d", i)
	}
	require.NoError(t, src.BFMAdd(c, "big", keys...).Err())

	var chunks int
	for it := int64(0); ; {
		d, err := src.BFScanDump(c, "big", it).Result()
		require.NoError(t, err)
		if d.Iter == 0 {
			break
		}
		require.NoError(t, dst.BFLoadChunk(c, "copy", d.Iter, d.Data).Err())
		it, chunks = d.Iter, chunks+1
	}
	assert.Equal(t, 3, chunks, "header and two pieces")
	got, err := dst.BFMExists(c, "copy", keys...).Result()
	require.NoError(t, err)
	for i, ok := range got {
		require.True(t, ok, keys[i])
	}
	assert.EqualValues(t, 5000, dst.BFCard(c, "copy").Val())

	require.EqualError(t, dst.BFLoadChunk(c, "new", 1, "short").Err(), msgBadData, "RedisBloom's text")
	require.EqualError(t, dst.BFLoadChunk(c, "other", 99, "x").Err(), "ERR not found")
	require.EqualError(t, src.BFScanDump(c, "missing", 0).Err(), "ERR not found")
}

// TestInsertCreatesWithDefaults: a key BF.INSERT creates takes what its
// options omit from the module-level defaults, as RedisBloom's does
// (redis.io's BF.INSERT: "If the filter is automatically created and
// this parameter is absent, then the module-level capacity is used"):
// the server's, then those CONFIG SET changes, as BF.ADD's.
func TestInsertCreatesWithDefaults(t *testing.T) {
	_, addr := startServer(t, Config{DefaultCapacity: 5000, DefaultErrorRate: 0.001, DefaultExpansion: 4})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.Do(c, "BF.INSERT", "ins", "ITEMS", "a").Err())
	require.True(t, rdb.BFAdd(c, "add", "a").Val())
	for _, key := range []string{"ins", "add"} {
		assert.EqualValues(t, 5000, rdb.BFInfoCapacity(c, key).Val().Capacity, "%s: capacity", key)
		assert.EqualValues(t, 4, rdb.BFInfoExpansion(c, key).Val().ExpansionRate, "%s: expansion", key)
	}
	assert.Equal(t, debugLayers(t, rdb, "add"), debugLayers(t, rdb, "ins"), "the same first layer (capacity, error ratio) as BF.ADD's")

	require.NoError(t, rdb.ConfigSet(c, "bf-initial-size", "7000").Err())
	require.NoError(t, rdb.Do(c, "BF.INSERT", "ins2", "ERROR", "0.05", "ITEMS", "a").Err())
	assert.EqualValues(t, 7000, rdb.BFInfoCapacity(c, "ins2").Val().Capacity, "CONFIG SET bf-initial-size")
	require.NoError(t, rdb.Do(c, "BF.INSERT", "ins3", "CAPACITY", "300", "ITEMS", "a").Err())
	assert.EqualValues(t, 300, rdb.BFInfoCapacity(c, "ins3").Val().Capacity, "CAPACITY given")
}

// debugLayers returns BF.DEBUG key's lines after its first (the layers:
// their bytes, hashes, capacity and error ratio).
func debugLayers(t *testing.T, rdb *redis.Client, key string) []any {
	t.Helper()
	lines, err := rdb.Do(ctx(t), "BF.DEBUG", key).Slice()
	require.NoError(t, err)
	require.NotEmpty(t, lines)
	return lines[1:]
}

// TestErrorRateTooSmall: a rate RedisBloom takes but whose filter would
// need more than 64 hash functions gets one clear error (it answered the
// library's sizing text, with the set's escaped file name in it), from
// BF.RESERVE, from BF.INSERT's ERROR, and from BF.ADD after CONFIG SET
// bf-error-rate (which takes any rate in (0, 1), as RedisBloom's).
func TestErrorRateTooSmall(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	const want = "ERR error rate too small: a filter has at most 64 hash functions"
	for _, args := range [][]any{
		{"BF.RESERVE", "fixed", "1e-20", "100", "NONSCALING"},
		{"BF.RESERVE", "{tiny}z", "1e-300", "100"},
		{"BF.INSERT", "ins", "ERROR", "1e-30", "ITEMS", "a"},
	} {
		require.EqualError(t, rdb.Do(c, args...).Err(), want, "%v", args)
	}
	require.NoError(t, rdb.ConfigSet(c, "bf-error-rate", "1e-300").Err())
	require.EqualError(t, rdb.BFAdd(c, "auto", "a").Err(), want)
	require.NoError(t, rdb.ConfigSet(c, "bf-error-rate", "1e-18").Err())
	require.NoError(t, rdb.BFAdd(c, "auto", "a").Err(), "the smallest rates that fit are taken")
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "fixed", "1e-19", "100", "NONSCALING").Err())
}
