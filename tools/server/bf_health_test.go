package server

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// healthReply is MBF.HEALTH's reply through go-redis, RESP2's flat array
// or RESP3's map, with its doubles parsed and its booleans as bool.
func healthReply(t *testing.T, v any) map[string]any {
	t.Helper()
	out := map[string]any{}
	put := func(k, v any) {
		name := k.(string)
		switch x := v.(type) {
		case string: // RESP2's double
			f, err := strconv.ParseFloat(x, 64)
			require.NoError(t, err, name)
			out[name] = f
		case int64:
			if name == "over_capacity" {
				out[name] = x == 1
			} else {
				out[name] = x
			}
		case []any: // layers
			var layers []map[string]any
			for _, l := range x {
				layers = append(layers, healthReply(t, l))
			}
			out[name] = layers
		default: // RESP3's float64, bool
			out[name] = x
		}
	}
	switch r := v.(type) {
	case []any:
		require.Zero(t, len(r)%2)
		for i := 0; i < len(r); i += 2 {
			put(r[i], r[i+1])
		}
	case map[any]any:
		for k, v := range r {
			put(k, v)
		}
	default:
		require.Failf(t, "not a map", "%T", v)
	}
	return out
}

// exactStats returns the library's exact Stats of key's layers, read
// through the server's open filter.
func exactStats(t *testing.T, s *Server, key string) []mmapbloom.Stats {
	t.Helper()
	stem, err := keyname.Stem([]byte(key))
	require.NoError(t, err)
	e, err := s.store.Acquire(stem, nil)
	require.NoError(t, err)
	defer s.store.Release(e, false)
	switch b := e.Bloom().(type) {
	case store.Fixed:
		st, err := b.Stats()
		require.NoError(t, err)
		return []mmapbloom.Stats{st}
	case store.Set:
		st, err := b.Stats()
		require.NoError(t, err)
		return st
	}
	require.Failf(t, "unknown filter", "%T", e.Bloom())
	return nil
}

// addLocally adds items 0..n-1 to key's fixed filter file in dir as a
// local process does, through the library (the server refuses adds past
// a NONSCALING filter's capacity; a local process does not).
func addLocally(t *testing.T, dir, key string, n int) {
	t.Helper()
	stem, err := keyname.Stem([]byte(key))
	require.NoError(t, err)
	f, err := mmapbloom.Open(filepath.Join(dir, stem+keyname.FileSuffix), nil)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, f.Add([]byte(fmt.Sprint("item-", i))))
	}
	require.NoError(t, f.Close())
}

// TestMBFHealthReply checks MBF.HEALTH's reply through go-redis in
// RESP2 and RESP3 against the library's exact pass: a fixed filter
// under and over its capacity and a scaling set of several layers, each
// small enough (at most store.HealthLines lines a layer) to be sampled whole;
// a missing key answers RedisBloom's not-found error.
func TestMBFHealthReply(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			dir := t.TempDir()
			s, addr := startServer(t, Config{Dir: dir})
			rdb, c := dialProto(t, addr, "", proto), ctx(t)
			require.NoError(t, rdb.BFReserveNonScaling(c, "half", 0.01, 10_000).Err())
			require.NoError(t, rdb.BFReserveNonScaling(c, "over", 0.01, 1000).Err())
			require.NoError(t, rdb.BFReserveExpansion(c, "set", 0.01, 1000, 2).Err())
			for i := range 5000 {
				item := fmt.Sprint("item-", i)
				require.NoError(t, rdb.BFAdd(c, "half", item).Err())
				require.NoError(t, rdb.BFAdd(c, "set", item).Err())
			}
			addLocally(t, dir, "over", 5000)
			for _, tc := range []struct {
				key  string
				over bool
			}{{"half", false}, {"over", true}, {"set", false}} {
				h := healthReply(t, rdb.Do(c, "MBF.HEALTH", tc.key).Val())
				exact := exactStats(t, s, tc.key)
				layers := h["layers"].([]map[string]any)
				require.Len(t, layers, len(exact), tc.key)
				require.EqualValues(t, rdb.BFInfoItems(c, tc.key).Val().ItemsInserted, h["items"], tc.key)
				require.EqualValues(t, rdb.BFInfoCapacity(c, tc.key).Val().Capacity, h["capacity"], tc.key)
				require.EqualValues(t, store.HealthLines, h["sampled_lines"], tc.key)
				require.GreaterOrEqual(t, h["sample_age_ms"], int64(0), tc.key)
				require.Equal(t, tc.over, h["over_capacity"], tc.key)
				var card float64
				for i, l := range layers {
					want := exact[i]
					require.Equal(t, map[string]any{"capacity": int64(want.N), "items": int64(want.Count), "fill_ratio": want.FillRatio,
						"estimated_cardinality": want.EstimatedCardinality, "estimated_fpr": want.EstimatedFPR, "error_rate": want.P,
						"over_capacity": want.OverCapacity}, l, "%s layer %d", tc.key, i)
					card += want.EstimatedCardinality
				}
				require.InDelta(t, card, h["estimated_cardinality"], 1e-6*card, tc.key)
				require.InEpsilon(t, 5000, h["estimated_cardinality"], 0.1, tc.key)
				require.InDelta(t, 0.01, h["error_rate"], 1e-12, tc.key)
			}
			require.Greater(t, len(healthReply(t, rdb.Do(c, "MBF.HEALTH", "set").Val())["layers"].([]map[string]any)), 2)
			require.EqualError(t, rdb.Do(c, "MBF.HEALTH", "missing").Err(), "ERR not found")
			require.EqualError(t, rdb.Do(c, "MBF.HEALTH").Err(), "ERR wrong number of arguments for 'mbf.health' command")
		})
	}
}

// TestMBFHealthSampled checks a filter larger than the sample: its fill
// and cardinality estimated from store.HealthLines lines, not the exact pass
// (the library's TestSampleStatsAgainstStats bounds the error; here a
// check of the wiring, the fill within 6 of its standard errors).
func TestMBFHealthSampled(t *testing.T) {
	s, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFReserveNonScaling(c, "big", 0.01, 1_000_000).Err())
	items := make([]any, 0, 10_000)
	for i := range 400_000 {
		items = append(items, i)
		if len(items) == cap(items) {
			require.NoError(t, rdb.BFMAdd(c, "big", items...).Err())
			items = items[:0]
		}
	}
	h := healthReply(t, rdb.Do(c, "MBF.HEALTH", "big").Val())
	exact := exactStats(t, s, "big")[0]
	require.Greater(t, exact.M/512, uint64(store.HealthLines), "larger than the sample")
	require.InDelta(t, exact.FillRatio, h["fill_ratio"], 0.01)
	require.InEpsilon(t, exact.EstimatedCardinality, h["estimated_cardinality"], 0.05)
	require.NotEqual(t, exact.FillRatio, h["fill_ratio"], "a sample, not the exact pass")
}

// TestHealthInfo checks INFO bloom's aggregates of the cached samples:
// the keys sampled, those over capacity and the histogram of estimated
// FPR over p; and that one INFO samples at most healthRefreshPerCall
// keys.
func TestHealthInfo(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFReserveNonScaling(c, "over", 0.01, 100).Err())
	require.NoError(t, rdb.BFReserveNonScaling(c, "light", 0.01, 10_000).Err())
	addLocally(t, dir, "over", 300)
	require.NoError(t, rdb.BFAdd(c, "light", "x").Err())
	info := rdb.Info(c, "bloom").Val()
	assert.Equal(t, "2", infoField(info, "bloom_health_sampled_keys"))
	assert.Equal(t, "1", infoField(info, "bloom_keys_over_capacity"))
	// light's ratio is about 0, over's (300 keys in a filter of 100) far above 10.
	assert.Equal(t, "0.5=1,1=1,2=1,5=1,10=1,inf=2", infoField(info, "bloom_fpr_ratio_histogram"))

	for i := range 2 * healthRefreshPerCall {
		require.NoError(t, rdb.BFReserveNonScaling(c, fmt.Sprint("more", i), 0.01, 100).Err())
	}
	assert.Equal(t, strconv.Itoa(2+healthRefreshPerCall), infoField(rdb.Info(c, "bloom").Val(), "bloom_health_sampled_keys"))
}

// TestHealthCommandInfo checks MBF.HEALTH's COMMAND INFO and DOCS:
// readonly, @read @slow @bloom, one key read.
func TestHealthCommandInfo(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	info, err := rdb.Command(c).Result()
	require.NoError(t, err)
	ci := info["mbf.health"]
	require.NotNil(t, ci)
	assert.EqualValues(t, 2, ci.Arity)
	assert.Equal(t, []string{"readonly"}, ci.Flags)
	assert.ElementsMatch(t, []string{"@read", "@slow", "@bloom"}, ci.ACLFlags)
	assert.EqualValues(t, 1, ci.FirstKeyPos)
	docs, err := rdb.Do(c, "COMMAND", "DOCS", "mbf.health").Slice()
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Equal(t, "mbf.health", docs[0])
}
