package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// heldSets is the library's sets with a hook: Create of the set named
// hold waits until release is closed (a creation held at its fsync).
type heldSets struct {
	store.LibrarySets
	hold    string
	entered chan struct{}
	release chan struct{}
}

func (h heldSets) Create(dir string, n uint64, p float64, spec store.SetSpec) (store.Bloom, error) {
	if dir == h.hold {
		close(h.entered)
		<-h.release
	}
	return h.LibrarySets.Create(dir, n, p, spec)
}

// TestCreateDoesNotStallOtherKeys: while one key's creation is held,
// adds and tests of existing keys (and of other new keys) complete; the
// commands on the held key wait for it and then see it.
func TestCreateDoesNotStallOtherKeys(t *testing.T) {
	dir := t.TempDir()
	held := heldSets{hold: dir + "/slow" + keyname.SetSuffix, entered: make(chan struct{}), release: make(chan struct{})}
	_, addr := startServer(t, Config{Dir: dir, DefaultExpansion: 2, DefaultCapacity: 1000, Sets: held})
	var once sync.Once
	release := func() { once.Do(func() { close(held.release) }) }
	t.Cleanup(release) // before the server's shutdown, which waits for the held command
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "old", "a").Err())

	slow := make(chan error, 1)
	go func() { slow <- dial(t, addr, "").BFAdd(c, "slow", "x").Err() }()
	<-held.entered
	quick, cancel := context.WithTimeout(c, 20*time.Second)
	defer cancel()
	for i := range 50 {
		require.NoError(t, rdb.BFAdd(quick, "old", i).Err(), "an add of an existing key during the held creation")
		require.True(t, rdb.BFExists(quick, "old", i).Val())
	}
	require.NoError(t, rdb.BFAdd(quick, "other-new", "y").Err(), "another new key")
	waiting := make(chan error, 1)
	go func() { waiting <- dial(t, addr, "").BFAdd(c, "slow", "y").Err() }()
	select {
	case <-slow:
		t.Fatal("the held creation answered before its release")
	default:
	}
	release()
	require.NoError(t, <-slow)
	require.NoError(t, <-waiting, "a command on the held key waits for it")
	assert.Equal(t, []bool{true, true}, rdb.BFMExists(c, "slow", "x", "y").Val())
}

// BenchmarkCreateStall: one client adds to an existing key, one add at
// a time, while another creates 500 new keys (scaling sets) in
// pipelines of 50; it reports the longest gap between two acknowledged
// adds of the existing key (max-gap-ms).
func BenchmarkCreateStall(b *testing.B) {
	for range b.N {
		s, err := New(Config{Dir: b.TempDir(), DefaultExpansion: 2, FilterIdle: -1})
		require.NoError(b, err)
		addr := serveOnB(b, s)
		b.Cleanup(func() { _ = s.Shutdown() })
		b.ReportMetric(float64(createStall(b, addr).Microseconds())/1000, "max-gap-ms")
	}
}

// createStall runs BenchmarkCreateStall's load on the server at addr and
// returns the longest gap.
func createStall(b *testing.B, addr string) time.Duration {
	old, creator := benchClient(b, addr), benchClient(b, addr)
	c := context.Background()
	require.NoError(b, old.BFAdd(c, "old", "0").Err())
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for batch := range 10 {
			pipe := creator.Pipeline()
			for i := range 50 {
				pipe.BFAdd(c, fmt.Sprintf("new-%d-%d", batch, i), "x")
			}
			_, err := pipe.Exec(c)
			require.NoError(b, err)
		}
	})
	var longest time.Duration
	last := time.Now()
	for i := 0; ; i++ {
		select {
		case <-done:
			wg.Wait()
			return longest
		default:
		}
		require.NoError(b, old.BFAdd(c, "old", i).Err())
		now := time.Now()
		longest, last = max(longest, now.Sub(last)), now
	}
}

// benchClient returns a go-redis client of addr with one connection,
// closed when the benchmark ends.
func benchClient(b *testing.B, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1, MaxRetries: -1, ReadTimeout: time.Minute})
	b.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
