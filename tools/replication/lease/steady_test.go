package lease

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowKV holds every Update of one key while blocked is set, until
// release is closed or the operation's context ends (a bucket operation
// stuck behind a loaded server).
type slowKV struct {
	KV
	key     string
	blocked atomic.Bool
	release chan struct{}
}

func (s *slowKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	if key == s.key && s.blocked.Load() {
		select {
		case <-s.release:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return s.KV.Update(ctx, key, value, revision)
}

// failingKV fails the next fail Updates at once (a NATS error such as
// "no responders" during an election), and counts every Update.
type failingKV struct {
	KV
	fail, tries atomic.Int32
}

func (f *failingKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	f.tries.Add(1)
	if f.fail.Add(-1) >= 0 {
		return 0, context.DeadlineExceeded
	}
	return f.KV.Update(ctx, key, value, revision)
}

// runKeeper runs k until the test ends.
func runKeeper(t *testing.T, k *Keeper) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// takeAll advances clk a tick at a time until k holds every key of
// names (its first rounds may time out on a cluster just formed).
func takeAll(t *testing.T, k *Keeper, clk *timerClock, names ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, name := range names {
			if !k.Holds(name) {
				clk.advance(k.Tick())
				return false
			}
		}
		return true
	}, time.Minute, 50*time.Millisecond, "the keeper takes %v", names)
}

// TestRunRenewsKeysConcurrently: one key's renewal stuck in the bucket
// does not hold back another key's: each key is renewed on its own
// schedule.
func TestRunRenewsKeysConcurrently(t *testing.T) {
	e := startEmbedded(t)
	// Long: the injected clock decides, and a bucket operation's own
	// timeout (real time, a fraction of the TTL) never ends in the test.
	const ttl = 10 * time.Minute
	slow := &slowKV{KV: openTestBucket(t, e.URLs(), "T_CONCURRENT", ttl, 3), key: "k.slow", release: make(chan struct{})}
	t.Cleanup(func() { close(slow.release) })
	clk := newTimerClock()
	a, err := NewKeeper(Config{KV: slow, Node: "a", TTL: ttl, Clock: clk,
		Keys: []Key{{Name: "k.slow", Candidate: true, Preferred: true}, {Name: "k.fast", Candidate: true, Preferred: true}}})
	require.NoError(t, err)
	runKeeper(t, a)
	takeAll(t, a, clk, "k.slow", "k.fast")

	slow.blocked.Store(true)
	since, bound, fast := clk.Now(), ttl-a.Tick(), a.Validity("k.fast")
	require.Eventually(t, func() bool {
		if fast.ValidAt(since.Add(bound)) { // renewed after since
			return true
		}
		clk.advance(a.Tick() / 8)
		return false
	}, 30*time.Second, 50*time.Millisecond, "k.fast is renewed while k.slow's renewal is stuck")
	require.True(t, a.Holds("k.slow"), "a renewal in flight keeps its lease")
}

// TestRunRetriesFailedRenewal: a renewal that fails is tried again
// within the lease's validity, well before the next tick, and a retry
// that succeeds extends the lease.
func TestRunRetriesFailedRenewal(t *testing.T) {
	e := startEmbedded(t)
	const ttl = 10 * time.Minute // long: the injected clock decides
	f := &failingKV{KV: openTestBucket(t, e.URLs(), "T_RETRY", ttl, 3)}
	clk := newTimerClock()
	a, err := NewKeeper(Config{KV: f, Node: "a", TTL: ttl, Clock: clk, Keys: []Key{{Name: "k.retry", Candidate: true, Preferred: true}}})
	require.NoError(t, err)
	runKeeper(t, a)
	takeAll(t, a, clk, "k.retry")
	require.Eventually(t, func() bool { return clk.waiting() > 0 }, time.Minute, 10*time.Millisecond, "the keeper waits for its next round")

	since, bound, v := clk.Now(), ttl-a.Tick(), a.Validity("k.retry")
	f.fail.Store(2)
	tries := f.tries.Load()
	clk.advance(a.Tick())
	for try := int32(1); try <= 2; try++ {
		require.Eventually(t, func() bool { return f.tries.Load() == tries+try && clk.waiting() > 0 }, time.Minute, 10*time.Millisecond,
			"renewal try %d made, the next one scheduled", try)
		require.False(t, v.ValidAt(since.Add(bound)), "a failed try extends nothing")
		clk.advance(a.Tick() / 4) // a retry comes within a quarter tick
	}
	require.Eventually(t, func() bool { return v.ValidAt(since.Add(bound)) }, time.Minute, 10*time.Millisecond,
		"the third try renews the lease")
	require.True(t, a.Holds("k.retry"))
}

// stepDowns records a keeper's OnStepDown calls.
type stepDowns struct {
	mu     sync.Mutex
	causes map[string]error
}

func (s *stepDowns) record(name string, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.causes[name] = cause
}

func (s *stepDowns) of(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.causes[name]
}

// TestStepDownCauses: every lease this node stops holding is reported
// with its cause, and every renewal try with its outcome.
func TestStepDownCauses(t *testing.T) {
	e := startEmbedded(t)
	const ttl = time.Minute // long: the injected clock, not the server's expiry, decides here
	// One replica: the step-down's read of the new holder is never
	// answered by a replica behind the leader (direct gets).
	kv := openTestBucket(t, e.URLs(), "T_STEPDOWN", ttl, 1)
	ctx := context.Background()
	newKeeper := func(kv KV, key Key) (*Keeper, *manualClock, *stepDowns, *[]error) {
		downs, renewals := &stepDowns{causes: map[string]error{}}, &[]error{}
		k, clk := newTestKeeper(t, kv, "a", ttl, key)
		k.cfg.OnStepDown = downs.record
		k.cfg.OnRenew = func(_ string, took time.Duration, err error) {
			assert.GreaterOrEqual(t, took, time.Duration(0))
			*renewals = append(*renewals, err)
		}
		require.Eventually(t, func() bool { k.Step(ctx); return k.Holds(key.Name) }, time.Minute, 50*time.Millisecond)
		return k, clk, downs, renewals
	}

	t.Run("renewal failed after N tries", func(t *testing.T) {
		f := &flakyKV{KV: kv}
		a, clk, downs, renewals := newKeeper(f, Key{Name: "k.fail", Candidate: true, Preferred: true})
		f.down.Store(true)
		for range 3 {
			clk.advance(a.Tick())
			a.Step(ctx)
		}
		require.False(t, a.Holds("k.fail"))
		cause := downs.of("k.fail")
		require.ErrorIs(t, cause, ErrRenewFailed)
		require.ErrorIs(t, cause, context.DeadlineExceeded, "the last try's error")
		assert.Contains(t, cause.Error(), "after 3 tries")
		require.Len(t, *renewals, 3)
		for _, err := range *renewals {
			assert.ErrorIs(t, err, context.DeadlineExceeded)
		}
	})

	t.Run("lost to another node", func(t *testing.T) {
		a, clk, downs, renewals := newKeeper(kv, Key{Name: "k.lost", Candidate: true, Preferred: true})
		clk.advance(a.Tick())
		a.Step(ctx)
		require.Equal(t, []error{nil}, *renewals, "renewed")
		// Another node's keeper took it (as after an expiry): a's
		// compare-and-swap finds another revision.
		e, err := kv.Get(ctx, "k.lost")
		require.NoError(t, err)
		_, err = kv.Update(ctx, "k.lost", []byte("b"), e.Revision())
		require.NoError(t, err)
		clk.advance(a.Tick())
		a.Step(ctx)
		require.False(t, a.Holds("k.lost"))
		require.ErrorIs(t, downs.of("k.lost"), ErrLost)
		assert.Contains(t, downs.of("k.lost").Error(), `taken by node "b"`)
	})

	t.Run("not eligible, then released", func(t *testing.T) {
		var unable atomic.Bool
		a, _, downs, _ := newKeeper(kv, Key{Name: "k.unable", Candidate: true, Preferred: true,
			Eligible: func() bool { return !unable.Load() }})
		unable.Store(true)
		a.Step(ctx)
		require.False(t, a.Holds("k.unable"))
		require.ErrorIs(t, downs.of("k.unable"), ErrNotEligible)

		unable.Store(false)
		require.Eventually(t, func() bool { a.Step(ctx); return a.Holds("k.unable") }, time.Minute, 50*time.Millisecond)
		a.Release(ctx)
		require.ErrorIs(t, downs.of("k.unable"), ErrReleased)
	})
}
