package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// keysIn returns n keys whose slots lie in [lo, hi].
func keysIn(n, lo, hi int) []string {
	var out []string
	for i := 0; len(out) < n && i < 10_000_000; i++ {
		k := "m" + strconv.Itoa(i)
		if s := cluster.KeySlot([]byte(k)); lo <= s && s <= hi {
			out = append(out, k)
		}
	}
	return out
}

// migrationLoad adds and tests keys through a ClusterClient that
// follows no redirection itself (MaxRedirects -1), so that the test
// sees every reply: it retries on MOVED and TRYAGAIN, counts them, and
// records any other error and any acknowledged item that tests absent.
type migrationLoad struct {
	keys             []string
	mu               sync.Mutex
	acked            [][2]string // key, item
	moved, tryAgain  atomic.Int64
	others, negative atomic.Int64
	firstOther       atomic.Value
}

// do runs fn until it returns nil or an error other than MOVED or
// TRYAGAIN, for at most 30 s; it reports whether fn succeeded.
func (l *migrationLoad) do(fn func() error) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		err := fn()
		switch {
		case err == nil:
			return true
		case strings.HasPrefix(err.Error(), "MOVED "):
			l.moved.Add(1)
		case strings.HasPrefix(err.Error(), "TRYAGAIN "):
			l.tryAgain.Add(1)
			time.Sleep(time.Millisecond)
		default:
			l.others.Add(1)
			l.firstOther.CompareAndSwap(nil, err.Error())
			return false
		}
	}
	l.others.Add(1)
	l.firstOther.CompareAndSwap(nil, "timed out")
	return false
}

func (l *migrationLoad) writer(c context.Context, cc *redis.ClusterClient, w, n int) {
	for i := 0; i < n; i++ {
		key, item := l.keys[(w*7+i)%len(l.keys)], fmt.Sprintf("w%d-%d", w, i)
		if l.do(func() error { return cc.BFAdd(c, key, item).Err() }) {
			l.mu.Lock()
			l.acked = append(l.acked, [2]string{key, item})
			l.mu.Unlock()
		}
	}
}

func (l *migrationLoad) reader(c context.Context, cc *redis.ClusterClient, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		l.mu.Lock()
		if len(l.acked) == 0 {
			l.mu.Unlock()
			time.Sleep(time.Millisecond)
			continue
		}
		ki := l.acked[(i*7919)%len(l.acked)]
		l.mu.Unlock()
		var found bool
		if l.do(func() (err error) { found, err = cc.BFExists(c, ki[0], ki[1]).Result(); return err }) && !found {
			l.negative.Add(1)
		}
	}
}

// TestClusterMigrateUnderLoad moves slots 0-1000 from node1 to node2
// while four writers add and two readers test through ClusterClients:
// MBF.MIGRATE on node1 into node2's directory, the new config written,
// CLUSTER RELOAD on node2, node1, node3. Clients see only MOVED and
// TRYAGAIN; no acknowledged item ever tests absent, during or after.
// With --fold-hashtags the keys are seen:{k}, and the buckets holding
// slots 0-1000 are copied whole.
func TestClusterMigrateUnderLoad(t *testing.T) {
	for _, fold := range []bool{false, true} {
		t.Run(fmt.Sprintf("fold=%v", fold), func(t *testing.T) { migrateUnderLoad(t, fold) })
	}
}

func migrateUnderLoad(t *testing.T, fold bool) {
	keys, wantCopied := append(keysIn(20, 0, 1000), keysIn(20, 1001, 5460)...), 20
	var opts []func(*Config)
	if fold {
		opts = append(opts, foldNode)
		buckets := map[int]bool{}
		for i, k := range keys {
			keys[i] = "seen:{" + k + "}"
			if b := cluster.KeySlot([]byte(k)) / 256; b*256 <= 1000 {
				buckets[b] = true
			}
		}
		wantCopied = len(buckets)
	}
	tc := startCluster(t, threeRanges, opts...)
	c := ctx(t)
	load := &migrationLoad{keys: keys}
	const writers, perWriter = 4, 2500
	finish := load.run(t, c, tc, writers, perWriter)
	load.waitAcked(writers * perWriter / 5)

	admin := func(i int) *redis.Client { return dial(t, tc.addrs[i], "") }
	copied, err := admin(0).Do(c, "mbf.migrate", "0-1000", tc.dirs[1]).Int()
	require.NoError(t, err)
	assert.Equal(t, wantCopied, copied, "keys (or buckets) of slots 0-1000 copied")
	info, err := admin(0).ClusterInfo(c).Result()
	require.NoError(t, err)
	assert.Contains(t, info, "mmapbloom_paused_slots:1001\r\n")
	time.Sleep(50 * time.Millisecond) // clients meet TRYAGAIN for a while
	tc.write(t, []string{"1001-5460", "0-1000,5461-10922", "10923-16383"})
	for _, i := range []int{1, 0, 2} {
		require.NoError(t, admin(i).Do(c, "cluster", "reload").Err())
	}
	info, err = admin(0).ClusterInfo(c).Result()
	require.NoError(t, err)
	assert.Contains(t, info, "mmapbloom_paused_slots:0\r\n")

	finish()
	assert.Zero(t, load.others.Load(), "errors other than MOVED and TRYAGAIN (first: %v)", load.firstOther.Load())
	assert.Zero(t, load.negative.Load(), "acknowledged items that tested absent")
	assert.Len(t, load.acked, writers*perWriter)
	t.Logf("%d adds, MOVED %d, TRYAGAIN %d", len(load.acked), load.moved.Load(), load.tryAgain.Load())
	assert.Positive(t, load.moved.Load()+load.tryAgain.Load(), "the move was not seen by clients")

	fresh := tc.client(t)
	missing := 0
	for _, ki := range load.acked {
		ok, err := fresh.BFExists(c, ki[0], ki[1]).Result()
		require.NoError(t, err)
		if !ok {
			missing++
		}
	}
	assert.Zero(t, missing, "acknowledged items absent after the move")
	err = admin(0).BFExists(c, load.keys[0], "x").Err()
	require.Error(t, err)
	assert.Equal(t, fmt.Sprintf("MOVED %d %s", cluster.KeySlot([]byte(load.keys[0])), tc.addrs[1]), err.Error())
}

// TestClusterMigrateErrors: MBF.MIGRATE refuses slots this node does not
// own and a bad range; a failed copy leaves the slots paused (TRYAGAIN)
// until MBF.MIGRATE CANCEL; a reload keeps a pause on slots still owned.
func TestClusterMigrateErrors(t *testing.T) {
	tc := startCluster(t, threeRanges)
	rdb := dial(t, tc.addrs[0], "")
	c := ctx(t)
	key := keysIn(1, 0, 100)[0]
	require.NoError(t, rdb.BFAdd(c, key, "x").Err())
	assert.EqualError(t, rdb.Do(c, "mbf.migrate", "5000-6000", tc.dirs[1]).Err(),
		"ERR slots 5000-6000 are not all owned by node node1")
	assert.ErrorContains(t, rdb.Do(c, "mbf.migrate", "0-16384", tc.dirs[1]).Err(), "bad cluster config line")
	assert.ErrorContains(t, rdb.Do(c, "mbf.migrate", "0-100", "/nonexistent/dir").Err(),
		"(slots stay paused; MBF.MIGRATE CANCEL resumes them)")
	assert.EqualError(t, rdb.BFExists(c, key, "x").Err(), "TRYAGAIN Multiple keys request during rehashing of slot")
	require.NoError(t, rdb.Do(c, "cluster", "reload").Err())
	assert.EqualError(t, rdb.BFAdd(c, key, "y").Err(), "TRYAGAIN Multiple keys request during rehashing of slot")
	require.NoError(t, rdb.Do(c, "mbf.migrate", "cancel").Err())
	ok, err := rdb.BFExists(c, key, "x").Result()
	require.NoError(t, err)
	assert.True(t, ok)
	assert.EqualError(t, rdb.Do(c, "mbf.migrate", "0-100", "x", "y").Err(), "ERR wrong number of arguments for 'mbf.migrate' command")
}

// TestClusterMigrateSet: a scaling set routes by its key like a file,
// and MBF.MIGRATE copies its directory: the target node serves every
// layer after the move.
func TestClusterMigrateSet(t *testing.T) {
	tc := startCluster(t, threeRanges)
	c := ctx(t)
	key := keysIn(1, 0, 1000)[0]
	node1, node2 := dial(t, tc.addrs[0], ""), dial(t, tc.addrs[1], "")
	require.Equal(t, "OK", node1.BFReserve(c, key, 0.01, 100).Val())
	err := node2.BFAdd(c, key, "x").Err()
	require.EqualError(t, err, fmt.Sprintf("MOVED %d %s", cluster.KeySlot([]byte(key)), tc.addrs[0]), "routed by its key")
	added := items("i", 1000)
	require.NoError(t, node1.BFMAdd(c, key, added...).Err())
	filters := node1.BFInfoFilters(c, key).Val().Filters
	require.Greater(t, filters, int64(1))

	copied, err := node1.Do(c, "mbf.migrate", "0-1000", tc.dirs[1]).Int()
	require.NoError(t, err)
	assert.Equal(t, 1, copied)
	tc.write(t, []string{"1001-5460", "0-1000,5461-10922", "10923-16383"})
	for i := range 3 {
		require.NoError(t, dial(t, tc.addrs[i], "").Do(c, "cluster", "reload").Err())
	}
	assert.Equal(t, filters, node2.BFInfoFilters(c, key).Val().Filters)
	got, err := node2.BFMExists(c, key, added...).Result()
	require.NoError(t, err)
	for i, b := range got {
		require.True(t, b, "item %d missing after the move", i)
	}
	assert.True(t, node2.BFAdd(c, key, "after").Val())
}
