package lease

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flakyKV fails every Update with a timeout while down is set (a holder
// cut off from NATS), and every Get while getDown is.
type flakyKV struct {
	KV
	down, getDown atomic.Bool
}

func (f *flakyKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if f.getDown.Load() {
		return nil, context.DeadlineExceeded
	}
	return f.KV.Get(ctx, key)
}

func (f *flakyKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	if f.down.Load() {
		return 0, context.DeadlineExceeded
	}
	return f.KV.Update(ctx, key, value, revision)
}

func TestKeeperRules(t *testing.T) {
	e := startEmbedded(t)
	// One replica: a read right after a write is never answered by a
	// replica behind the leader (direct gets); the rules are the keeper's.
	kv := openTestBucket(t, e.URLs(), "T_RULES", time.Minute, 1)
	ctx := context.Background()
	const ttl = time.Minute // long: the injected clocks, not the server's expiry, decide here

	t.Run("unrenewed lease dropped at TTL minus one tick", func(t *testing.T) {
		f := &flakyKV{KV: kv}
		a, clk := newTestKeeper(t, f, "a", ttl, Key{Name: "k.flaky", Candidate: true, Preferred: true})
		a.Step(ctx)
		require.True(t, a.Holds("k.flaky"))
		f.down.Store(true)
		for range 2 { // renewals failing at +tick and +2 ticks: still held
			clk.advance(a.Tick())
			a.Step(ctx)
			require.True(t, a.Holds("k.flaky"))
			require.Equal(t, View{"k.flaky": "a"}, a.View())
		}
		clk.advance(a.Tick()) // +3 ticks = TTL - tick: the entry may expire before the next round
		a.Step(ctx)
		require.False(t, a.Holds("k.flaky"))
		assert.Equal(t, View{"k.flaky": ""}, a.View())
	})

	t.Run("a restart within the TTL takes its lease back", func(t *testing.T) {
		a, _ := newTestKeeper(t, kv, "a", ttl, Key{Name: "k.restart", Candidate: true, Preferred: true})
		a.Step(ctx)
		require.True(t, a.Holds("k.restart"))
		again, _ := newTestKeeper(t, kv, "a", ttl, Key{Name: "k.restart", Candidate: true})
		again.Step(ctx)
		require.True(t, again.Holds("k.restart"), "the bucket names this node: CAS on its revision")
		a.Step(ctx) // the old keeper's revision is stale: lost
		require.False(t, a.Holds("k.restart"))
	})

	t.Run("other candidates wait one TTL for a free lease", func(t *testing.T) {
		b, clk := newTestKeeper(t, kv, "b", ttl, Key{Name: "k.grace", Candidate: true})
		b.Step(ctx)
		require.False(t, b.Holds("k.grace"))
		clk.advance(ttl - time.Nanosecond)
		b.Step(ctx)
		require.False(t, b.Holds("k.grace"))
		clk.advance(time.Nanosecond)
		b.Step(ctx)
		require.True(t, b.Holds("k.grace"))
	})

	t.Run("other candidates' wait counts from Run", func(t *testing.T) {
		b, clk := newTestKeeper(t, kv, "b", ttl, Key{Name: "k.run", Candidate: true})
		clk.advance(2 * ttl) // created long before it runs (serve: before its log opened)
		stopped, cancel := context.WithCancel(ctx)
		cancel()
		require.ErrorIs(t, b.Run(stopped), context.Canceled)
		b.Step(ctx)
		require.False(t, b.Holds("k.run"), "one TTL since Run, not since NewKeeper")
		clk.advance(ttl)
		b.Step(ctx)
		require.True(t, b.Holds("k.run"))
	})

	t.Run("non-candidates only watch", func(t *testing.T) {
		w, clk := newTestKeeper(t, kv, "w", ttl, Key{Name: "k.watch"}, Key{Name: "k.grace"})
		clk.advance(2 * ttl)
		var seen []View
		w.cfg.OnChange = func(v View) { seen = append(seen, v) }
		w.Step(ctx)
		w.Step(ctx)
		require.Equal(t, []View{{"k.watch": "", "k.grace": "b"}}, seen, "OnChange once per change")
		require.Equal(t, "", holderInBucket(t, kv, "k.watch"))
	})

	t.Run("a node not eligible neither takes nor keeps a lease", func(t *testing.T) {
		var able atomic.Bool
		a, _ := newTestKeeper(t, kv, "a", ttl, Key{Name: "k.able", Candidate: true, Preferred: true, Eligible: able.Load})
		a.Step(ctx)
		require.False(t, a.Holds("k.able"), "preferred, but not eligible: the free lease stays free")
		require.Equal(t, "", holderInBucket(t, kv, "k.able"))
		able.Store(true)
		a.Step(ctx)
		require.True(t, a.Holds("k.able"))
		able.Store(false) // its log of the shard stopped
		a.Step(ctx)
		require.False(t, a.Holds("k.able"))
		require.Equal(t, View{"k.able": ""}, a.View())
		require.Equal(t, "", holderInBucket(t, kv, "k.able"), "given up at once, not left to expire")
		b, bClk := newTestKeeper(t, kv, "b", ttl, Key{Name: "k.able", Candidate: true})
		bClk.advance(ttl)
		b.Step(ctx)
		require.True(t, b.Holds("k.able"), "a healthy candidate takes it")
		a.Step(ctx)
		require.Equal(t, View{"k.able": "b"}, a.View())
	})

	t.Run("a restart not eligible gives its lease up", func(t *testing.T) {
		a, _ := newTestKeeper(t, kv, "a", ttl, Key{Name: "k.down", Candidate: true, Preferred: true})
		a.Step(ctx)
		require.True(t, a.Holds("k.down"))
		again, _ := newTestKeeper(t, kv, "a", ttl, Key{Name: "k.down", Candidate: true, Preferred: true,
			Eligible: func() bool { return false }})
		again.Step(ctx)
		require.False(t, again.Holds("k.down"), "the bucket names this node, which may not hold it now")
		require.Equal(t, "", holderInBucket(t, kv, "k.down"))
	})

	t.Run("a bucket error reads as no holder at first", func(t *testing.T) {
		w, _ := newTestKeeper(t, errKV{kv}, "w", ttl, Key{Name: "k.grace"})
		w.Step(ctx)
		require.Equal(t, View{"k.grace": ""}, w.View())
	})

	t.Run("a bucket error keeps the holder last seen", func(t *testing.T) {
		f := &flakyKV{KV: kv}
		w, _ := newTestKeeper(t, f, "w", ttl, Key{Name: "k.grace"})
		w.Step(ctx)
		require.Equal(t, View{"k.grace": "b"}, w.View())
		f.getDown.Store(true)
		w.Step(ctx)
		require.Equal(t, View{"k.grace": "b"}, w.View(), "a timeout is not a failover")
	})
}

// errKV fails every Get as an unreachable server does.
type errKV struct{ KV }

func (errKV) Get(context.Context, string) (jetstream.KeyValueEntry, error) {
	return nil, errors.New("nats: timeout")
}

func TestBadConfig(t *testing.T) {
	_, err := NewKeeper(Config{KV: errKV{}, Node: "a", TTL: MinTTL - 1})
	require.ErrorIs(t, err, ErrBadConfig)
	_, err = NewKeeper(Config{KV: errKV{}, TTL: time.Second})
	require.ErrorIs(t, err, ErrBadConfig)
	_, err = OpenBucket(context.Background(), nil, "B", time.Second, 0)
	require.ErrorIs(t, err, ErrBadConfig)
}
