package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// items returns n distinct items with prefix.
func items(prefix string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

// TestScalingSetCommands drives every BF command on a scaling key
// through growth past its first capacity.
func TestScalingSetCommands(t *testing.T) {
	s, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)

	require.Equal(t, "OK", rdb.BFReserve(c, "grow", 0.01, 1000).Val())
	require.DirExists(t, filepath.Join(s.cfg.Dir, "grow.bfset"))
	require.Equal(t, "MBbloom--", rdb.Type(c, "grow").Val())
	info, err := rdb.BFInfo(c, "grow").Result()
	require.NoError(t, err)
	assert.Equal(t, redis.BFInfo{Capacity: 1000, Size: info.Size, Filters: 1, ItemsInserted: 0, ExpansionRate: 2}, info)
	assert.Positive(t, info.Size)

	// 20,000 keys: 20x the first layer, so several layers.
	keys := items("k", 20000)
	added := 0
	for i := 0; i < len(keys); i += 1000 {
		got, err := rdb.BFMAdd(c, "grow", keys[i:i+1000]...).Result()
		require.NoError(t, err)
		for _, b := range got {
			if b {
				added++
			}
		}
	}
	// Keys the set answers absent: a new key is a false positive about
	// one time in a hundred here, and the set's seed is random.
	var fresh []string
	for i := 0; len(fresh) < 2; i++ {
		if k := fmt.Sprintf("fresh-%d", i); !rdb.BFExists(c, "grow", k).Val() {
			fresh = append(fresh, k)
		}
	}
	assert.True(t, rdb.BFAdd(c, "grow", fresh[0]).Val())
	assert.False(t, rdb.BFAdd(c, "grow", fresh[0]).Val())
	ins, err := rdb.BFInsert(c, "grow", &redis.BFInsertOptions{NoCreate: true}, fresh[1], "k-5").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false}, ins)

	info, err = rdb.BFInfo(c, "grow").Result()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, info.Filters, int64(4), "1000+2000+4000+8000 < 20000")
	assert.GreaterOrEqual(t, info.Capacity, int64(20000))
	assert.Equal(t, int64(2), info.ExpansionRate)
	assert.Equal(t, int64(added+2), info.ItemsInserted)
	assert.Equal(t, info.ItemsInserted, rdb.BFCard(c, "grow").Val())
	want := map[string]int64{"CAPACITY": info.Capacity, "SIZE": info.Size, "FILTERS": info.Filters,
		"ITEMS": info.ItemsInserted, "EXPANSION": 2}
	for sel, v := range want {
		got, err := rdb.Do(c, "BF.INFO", "grow", sel).Result()
		require.NoError(t, err, sel)
		assert.Equal(t, []any{v}, got, sel)
	}
	// Size is the bytes of the layer files: the directory's files but
	// MANIFEST, CONTROL and LOCK. A set at p = 1e-7 of 100 keys has a
	// classic first layer, whose bit array is m/8 rounded up to 64 bytes.
	assert.Equal(t, layerFileBytes(t, filepath.Join(s.cfg.Dir, "grow.bfset")), info.Size)
	require.NoError(t, rdb.BFReserve(c, "tiny", 1e-7, 100).Err())
	tiny, err := rdb.BFInfo(c, "tiny").Result()
	require.NoError(t, err)
	assert.Equal(t, layerFileBytes(t, filepath.Join(s.cfg.Dir, "tiny.bfset")), tiny.Size)
	require.NoError(t, rdb.Del(c, "tiny").Err())

	// No false negatives; false positives bounded.
	for i := 0; i < len(keys); i += 1000 {
		got, err := rdb.BFMExists(c, "grow", keys[i:i+1000]...).Result()
		require.NoError(t, err)
		for j, b := range got {
			require.True(t, b, "key %v missing", keys[i+j])
		}
	}
	assert.True(t, rdb.BFExists(c, "grow", "k-19999").Val())
	fp := 0
	absent := items("absent", 20000)
	for i := 0; i < len(absent); i += 1000 {
		got, err := rdb.BFMExists(c, "grow", absent[i:i+1000]...).Result()
		require.NoError(t, err)
		for _, b := range got {
			if b {
				fp++
			}
		}
	}
	// p = 0.01 over 20,000 tests: mean at most 200; the set has a random
	// seed, so the bound is one exceeded by chance once in a million runs
	// (testkit.FalsePositiveLimit), not three standard deviations (once
	// in 740 runs at rate p).
	assert.LessOrEqual(t, fp, testkit.FalsePositiveLimit(0.01, len(absent)), "false positives")

	// Keyspace commands see the set beside a fixed file.
	require.Equal(t, "OK", rdb.BFReserveNonScaling(c, "fixed", 0.01, 100).Val())
	assert.Equal(t, []string{"fixed", "grow"}, rdb.Keys(c, "*").Val())
	assert.Equal(t, int64(2), rdb.DBSize(c).Val())
	scanned, _, err := rdb.Scan(c, 0, "*", 100).Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"fixed", "grow"}, scanned)
	assert.Equal(t, int64(2), rdb.Exists(c, "grow", "fixed").Val())

	// SCANDUMP of a set starts with its first chunk (bf_setscan_test.go
	// loads whole dumps).
	d, err := rdb.BFScanDump(c, "grow", 0).Result()
	require.NoError(t, err)
	require.True(t, isSetChunk([]byte(d.Data)), "a set's first chunk")

	// DEL is refused while another process (here a handle) has it open.
	other, err := mmapbloom.OpenSet(filepath.Join(s.cfg.Dir, "grow.bfset"), nil)
	require.NoError(t, err)
	_, err = rdb.Del(c, "grow").Result()
	require.ErrorContains(t, err, "key 'grow' is open in another process")
	require.NoError(t, other.Close())
	assert.Equal(t, int64(1), rdb.Del(c, "grow").Val())
	require.NoDirExists(t, filepath.Join(s.cfg.Dir, "grow.bfset"))
	assert.Equal(t, int64(0), rdb.Exists(c, "grow").Val())
}

// TestScalingCreateForms checks which forms make a set and which a file.
func TestScalingCreateForms(t *testing.T) {
	s, addr := startServer(t, Config{DefaultExpansion: 4, DefaultCapacity: 500})
	rdb, c := dial(t, addr, ""), ctx(t)
	isSet := func(key string) bool {
		stem, err := keyname.Stem([]byte(key))
		require.NoError(t, err)
		_, dir := s.store.StemPaths(stem)
		ok, err := filepath.Glob(dir)
		require.NoError(t, err)
		return len(ok) == 1
	}
	require.Equal(t, "OK", rdb.BFReserveExpansion(c, "e4", 0.01, 100, 4).Val())
	require.Equal(t, "OK", rdb.BFReserveExpansion(c, "e0", 0.01, 100, 0).Val())
	require.Equal(t, "OK", rdb.BFReserveNonScaling(c, "ns", 0.01, 100).Val())
	require.NoError(t, rdb.BFInsert(c, "ins", &redis.BFInsertOptions{Capacity: 50, Expansion: 3}, "a").Err())
	require.NoError(t, rdb.BFInsert(c, "insns", &redis.BFInsertOptions{NonScaling: true}, "a").Err())
	require.NoError(t, rdb.BFAdd(c, "auto", "a").Err())
	for key, set := range map[string]bool{"e4": true, "e0": false, "ns": false, "ins": true, "insns": false, "auto": true} {
		assert.Equal(t, set, isSet(key), key)
	}
	for key, want := range map[string][2]int64{"e4": {100, 4}, "ins": {50, 3}, "auto": {500, 4}} {
		info, err := rdb.BFInfo(c, key).Result()
		require.NoError(t, err, key)
		assert.Equal(t, want, [2]int64{info.Capacity, info.ExpansionRate}, key)
	}
	// Fixed filters: Expansion rate nil, as RedisBloom's NONSCALING.
	for _, key := range []string{"e0", "ns", "insns"} {
		assert.Equal(t, []any{nil}, rdb.Do(c, "BF.INFO", key, "EXPANSION").Val(), key)
	}

	_, addr = startServer(t, Config{}) // DefaultExpansion 0: a fixed file
	rdb = dial(t, addr, "")
	require.NoError(t, rdb.BFAdd(c, "auto", "a").Err())
	assert.Equal(t, []any{nil}, rdb.Do(c, "BF.INFO", "auto", "EXPANSION").Val())
}

// TestWindowedSet drives MBF.RESERVEWINDOW with an injected clock.
func TestWindowedSet(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	advance := func(d time.Duration) { now.Add(int64(d)) }
	_, addr := startServer(t, Config{Sets: store.LibrarySets{Now: clock}})
	rdb, c := dial(t, addr, ""), ctx(t)

	for _, tc := range []struct {
		args []any
		err  string
	}{
		{[]any{"w", "0.01", "100", "WINDOW", "60"}, "ERR wrong number of arguments for 'mbf.reservewindow' command"},
		{[]any{"w", "x", "100", "WINDOW", "60", "KEEP", "3"}, "ERR bad error rate"},
		{[]any{"w", "0.01", "0", "WINDOW", "60", "KEEP", "3"}, "ERR capacity must be in the range [1, 1073741824]"},
		{[]any{"w", "0.01", "100", "WINDOW", "0", "KEEP", "3"}, "ERR bad window"},
		{[]any{"w", "0.01", "100", "WINDOW", "60", "KEEP", "x"}, "ERR bad keep"},
		{[]any{"w", "0.01", "100", "WINDOW", "60", "KEEP", "5000"}, "ERR keep out of range"},
		// 100 years times 3 windows is beyond a time.Duration (it said
		// "ERR create set w.bfset: window ... times keep 3: beyond ...: not
		// a valid filter set").
		{[]any{"w", "0.01", "100", "WINDOW", "3153600000", "KEEP", "3"}, "ERR window out of range"},
		{[]any{"w", "0.01", "100", "WINDOW", "9100000", "KEEP", "1024"}, "ERR window out of range"},
		{[]any{"w", "0.01", "100", "WINDOW", "60", "FOO", "3"}, "ERR syntax error"},
		{[]any{"w", "0.01", "100", "WINDOW", "60", "KEEP", "3", "EXPANSION", "x"}, "ERR bad expansion"},
		{[]any{"w", "0.01", "100", "WINDOW", "60", "KEEP", "3", "EXPANSION", "0"}, "ERR expansion must be in the range [1, 32768]"},
		{[]any{"w", "0.01", "100", "WINDOW", "60", "WINDOW", "60"}, "ERR WINDOW and KEEP are required"},
	} {
		err := rdb.Do(c, append([]any{"MBF.RESERVEWINDOW"}, tc.args...)...).Err()
		require.EqualError(t, err, tc.err, tc.args)
	}

	require.Equal(t, "OK", rdb.Do(c, "MBF.RESERVEWINDOW", "w", "0.01", "1000", "WINDOW", "60", "KEEP", "3").Val())
	require.Equal(t, "OK", rdb.Do(c, "MBF.RESERVEWINDOW", "wr", "0.01", "1000", "WINDOW", "60", "KEEP", "3", "REFRESH").Val())
	require.EqualError(t, rdb.Do(c, "MBF.RESERVEWINDOW", "w", "0.01", "1000", "WINDOW", "60", "KEEP", "3").Err(), "ERR item exists")
	assert.Equal(t, "MBbloom--", rdb.Type(c, "w").Val())
	require.Equal(t, "OK", rdb.Do(c, "MBF.RESERVEWINDOW", "wg", "0.01", "100", "WINDOW", "60", "KEEP", "3", "EXPANSION", "2").Val())

	for _, key := range []string{"w", "wr"} {
		assert.True(t, rdb.BFAdd(c, key, "old").Val())
	}
	for i := range 2 { // two more windows: "old" is in the oldest kept one
		advance(time.Minute)
		for _, key := range []string{"w", "wr"} {
			require.NoError(t, rdb.BFAdd(c, key, fmt.Sprint("tick", i)).Err())
		}
	}
	info, err := rdb.BFInfo(c, "w").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(3), info.Filters, "three windows kept")
	assert.Equal(t, int64(3000), info.Capacity)
	assert.Equal(t, int64(0), info.ExpansionRate, "windows do not grow without EXPANSION")
	assert.Equal(t, int64(3), info.ItemsInserted)

	// A hit refreshes "old" into the current window only with REFRESH.
	assert.False(t, rdb.BFAdd(c, "w", "old").Val())
	assert.False(t, rdb.BFAdd(c, "wr", "old").Val())
	advance(time.Minute) // the window of the first add leaves
	assert.False(t, rdb.BFExists(c, "w", "old").Val(), "forgotten after 3 windows")
	assert.True(t, rdb.BFExists(c, "wr", "old").Val(), "refreshed a window ago")
	assert.True(t, rdb.BFExists(c, "w", "tick0").Val(), "not before")
	require.NoError(t, rdb.BFAdd(c, "w", "new").Err())
	assert.Equal(t, int64(3), rdb.Do(c, "BF.INFO", "w", "FILTERS").Val().([]any)[0], "rotated: still three")

	// With EXPANSION a window of 100 keys that receives 500 grows into
	// layers of 100, 200 and 400 keys and keeps every key.
	burst := items("burst", 500)
	require.NoError(t, rdb.BFMAdd(c, "wg", burst...).Err())
	info, err = rdb.BFInfo(c, "wg").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(3), info.Filters, "one window in three layers")
	assert.Equal(t, int64(700), info.Capacity)
	assert.Equal(t, int64(2), info.ExpansionRate)
	got, err := rdb.BFMExists(c, "wg", burst...).Result()
	require.NoError(t, err)
	assert.NotContains(t, got, false)
}

// TestSetSharing adds to one scaling set from a local handle and over
// RESP at once: afterwards no key is missing.
func TestSetSharing(t *testing.T) {
	s, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.Equal(t, "OK", rdb.BFReserve(c, "shared", 0.01, 500).Val())
	local, err := mmapbloom.OpenSet(filepath.Join(s.cfg.Dir, "shared.bfset"), nil)
	require.NoError(t, err)
	defer local.Close()

	const n = 5000
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range n {
			assert.NoError(t, local.Add([]byte(fmt.Sprint("local-", i))))
		}
	}()
	go func() {
		defer wg.Done()
		remote := items("remote", n)
		for i := 0; i < n; i += 250 {
			assert.NoError(t, rdb.BFMAdd(c, "shared", remote[i:i+250]...).Err())
		}
	}()
	wg.Wait()
	for _, prefix := range []string{"local", "remote"} {
		all := items(prefix, n)
		got, err := rdb.BFMExists(c, "shared", all...).Result()
		require.NoError(t, err)
		for i, b := range got {
			require.True(t, b, "%s-%d missing", prefix, i)
		}
	}
	assert.Greater(t, rdb.BFInfoFilters(c, "shared").Val().Filters, int64(1))
}

// TestSetIdleClose: a set is opened on use and closed when idle like a
// file, after which another process may remove it.
func TestSetIdleClose(t *testing.T) {
	s, addr := startServer(t, Config{FilterIdle: 20 * time.Millisecond})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.Equal(t, "OK", rdb.BFReserve(c, "idle", 0.01, 100).Val())
	require.NoError(t, rdb.BFAdd(c, "idle", "a").Err())
	require.Equal(t, 1, s.store.OpenCount())
	// Closed within two idle periods (40 ms) of its last use; a minute
	// bounds the wait on a loaded machine.
	closed := func() bool { return s.store.OpenCount() == 0 }
	require.Eventually(t, closed, time.Minute, 10*time.Millisecond, "closed when idle")
	assert.True(t, rdb.BFExists(c, "idle", "a").Val(), "reopened on use")
	require.Eventually(t, closed, time.Minute, 10*time.Millisecond, "closed when idle again")
	require.NoError(t, mmapbloom.RemoveSet(filepath.Join(s.cfg.Dir, "idle.bfset")), "no handle left open")
	assert.False(t, rdb.BFExists(c, "idle", "a").Val())
}

// layerFileBytes sums the sizes of the layer files (L*.bloom) of the set
// directory dir.
func layerFileBytes(t *testing.T, dir string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "L*.bloom"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		size += st.Size()
	}
	return size
}

// BF.INFO of a scaling key filled to exactly its capacity says what
// RedisBloom says: one filter of the capacity; the next new item adds
// the second (it said 2 filters, Capacity 300, after the 100th item).
func TestScalingSetGrowsOnNextNewItem(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.Equal(t, "OK", rdb.BFReserve(c, "g", 0.01, 100).Val())
	for i := 0; rdb.BFCard(c, "g").Val() < 100 && i < 1000; i++ {
		require.NoError(t, rdb.BFAdd(c, "g", fmt.Sprintf("a-%d", i)).Err())
	}
	require.Equal(t, int64(100), rdb.BFCard(c, "g").Val())
	assert.Equal(t, []any{int64(1)}, rdb.Do(c, "BF.INFO", "g", "FILTERS").Val())
	assert.Equal(t, []any{int64(100)}, rdb.Do(c, "BF.INFO", "g", "CAPACITY").Val())
	assert.False(t, rdb.BFAdd(c, "g", "a-0").Val(), "present: no growth")
	assert.Equal(t, []bool{false, false}, rdb.BFMAdd(c, "g", "a-0", "a-1").Val())
	assert.Equal(t, []any{int64(1)}, rdb.Do(c, "BF.INFO", "g", "FILTERS").Val())
	fresh := ""
	for i := 0; fresh == ""; i++ {
		if k := fmt.Sprintf("b-%d", i); !rdb.BFExists(c, "g", k).Val() {
			fresh = k
		}
	}
	assert.True(t, rdb.BFAdd(c, "g", fresh).Val())
	assert.Equal(t, []any{int64(2)}, rdb.Do(c, "BF.INFO", "g", "FILTERS").Val())
	assert.Equal(t, []any{int64(300)}, rdb.Do(c, "BF.INFO", "g", "CAPACITY").Val())
	assert.Equal(t, int64(101), rdb.BFCard(c, "g").Val())
}
