package server

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// move runs the README's move of ranges from node from to node to:
// MBF.MIGRATE into to's directory, the config rewritten to slots,
// CLUSTER RELOAD on to, then from, then the others.
func (tc *testCluster) move(t *testing.T, c context.Context, from, to int, ranges string, slots []string) {
	t.Helper()
	admin := func(i int) *redis.Client { return dial(t, tc.addrs[i], "") }
	require.NoError(t, admin(from).Do(c, "mbf.migrate", ranges, tc.dirs[to]).Err())
	tc.write(t, slots)
	order := []int{to, from}
	for i := range tc.addrs {
		if i != to && i != from {
			order = append(order, i)
		}
	}
	for _, i := range order {
		require.NoError(t, admin(i).Do(c, "cluster", "reload").Err())
	}
}

// waitAcked waits until load has n acknowledged adds, at most 30 s.
func (l *migrationLoad) waitAcked(n int) {
	for i := 0; i < 30_000; i++ {
		l.mu.Lock()
		got := len(l.acked)
		l.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// run starts writers (perWriter adds each) and two readers on l, each
// through its own ClusterClient of tc that follows no redirection;
// finish waits for the writers, then stops the readers.
func (l *migrationLoad) run(t *testing.T, c context.Context, tc *testCluster, writers, perWriter int) (finish func()) {
	client := func() *redis.ClusterClient {
		cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tc.addrs, MaxRedirects: -1,
			ReadTimeout: 30 * time.Second})
		t.Cleanup(func() { _ = cc.Close() })
		return cc
	}
	var wg, rg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() { defer wg.Done(); l.writer(c, client(), w, perWriter) }()
	}
	for range 2 {
		rg.Add(1)
		go func() { defer rg.Done(); l.reader(c, client(), stop) }()
	}
	return func() {
		wg.Wait()
		close(stop)
		rg.Wait()
	}
}

// TestClusterMoveBackUnderLoad moves slots 0-1000 from node1 to node2
// and back within --filter-idle (1 minute here; the file check is off,
// so the reload alone must close the moved slots' files) while four
// writers add and two readers test through go-redis ClusterClients: no
// error but MOVED and TRYAGAIN, no acknowledged add ever tests absent,
// and afterwards every one is present in the answers of a fresh client
// and on disk, in node1's files. Before, node1 kept answering from, and
// adding to, the files the move back renamed over: adds acknowledged on
// node2 tested absent on node1, and node1's later adds went to unlinked
// files.
func TestClusterMoveBackUnderLoad(t *testing.T) {
	tc := startCluster(t, threeRanges, func(cfg *Config) { cfg.FilterIdle, cfg.FileCheck = time.Minute, -1 })
	c := ctx(t)
	load := &migrationLoad{keys: append(keysIn(20, 0, 1000), keysIn(10, 1001, 5460)...)}
	const writers, perWriter = 4, 1500
	finish := load.run(t, c, tc, writers, perWriter)
	load.waitAcked(writers * perWriter / 5)
	tc.move(t, c, 0, 1, "0-1000", []string{"1001-5460", "0-1000,5461-10922", "10923-16383"})
	load.mu.Lock()
	atB := len(load.acked)
	load.mu.Unlock()
	load.waitAcked(atB + writers*perWriter/5) // adds acknowledged by node2
	tc.move(t, c, 1, 0, "0-1000", threeRanges)
	finish()

	assert.Zero(t, load.others.Load(), "errors other than MOVED and TRYAGAIN (first: %v)", load.firstOther.Load())
	assert.Zero(t, load.negative.Load(), "acknowledged items that tested absent")
	require.Len(t, load.acked, writers*perWriter)
	t.Logf("%d adds, MOVED %d, TRYAGAIN %d", len(load.acked), load.moved.Load(), load.tryAgain.Load())
	fresh := tc.client(t)
	missing, onDisk := 0, 0
	files := map[string]*mmapbloom.Filter{}
	for _, ki := range load.acked {
		ok, err := fresh.BFExists(c, ki[0], ki[1]).Result()
		require.NoError(t, err)
		if !ok {
			missing++
		}
		require.LessOrEqual(t, cluster.KeySlot([]byte(ki[0])), 5460, "node1's slots")
		f := files[ki[0]]
		if f == nil {
			stem, err := keyname.Stem([]byte(ki[0]))
			require.NoError(t, err)
			f, err = mmapbloom.Open(filepath.Join(tc.dirs[0], stem+keyname.FileSuffix), &mmapbloom.OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			defer f.Close()
			files[ki[0]] = f
		}
		if ok, err := f.TestString(ki[1]); err == nil && !ok {
			onDisk++
		}
	}
	assert.Zero(t, missing, "acknowledged adds absent from the answers after the moves")
	assert.Zero(t, onDisk, "acknowledged adds absent from node1's files after the moves")
}
