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

// gateKV counts Updates and, while shut is set, holds each in entered
// until the test sends on open.
type gateKV struct {
	KV
	updates atomic.Int64
	shut    atomic.Bool
	entered chan struct{}
	open    chan struct{}
}

func (g *gateKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	g.updates.Add(1)
	if g.shut.Load() {
		g.entered <- struct{}{}
		<-g.open
	}
	return g.KV.Update(ctx, key, value, revision)
}

// TestKeeperConfirm: Confirm returns once a renewal that began after
// the call succeeded; calls arriving while one renewal runs share the
// next; a round of Step waits for a Confirm's renewal instead of losing
// the lease on its revision; a lease not held is ErrLost.
func TestKeeperConfirm(t *testing.T) {
	e := startEmbedded(t)
	kv := openTestBucket(t, e.URLs(), "T_CONFIRM", time.Minute, 3)
	ctx := context.Background()
	const ttl = time.Minute // long: the injected clock, not the server's expiry, decides here
	g := &gateKV{KV: kv, entered: make(chan struct{}), open: make(chan struct{})}
	a, clk := newTestKeeper(t, g, "a", ttl, Key{Name: "k.confirm", Candidate: true, Preferred: true})
	require.ErrorIs(t, a.Confirm(ctx, "k.confirm"), ErrLost, "not taken yet")
	require.ErrorIs(t, a.Confirm(ctx, "k.other"), ErrLost, "not followed")
	require.Eventually(t, func() bool { a.Step(ctx); return a.Holds("k.confirm") }, time.Minute, 50*time.Millisecond)
	v := a.Validity("k.confirm")

	clk.advance(a.Tick())
	t1 := clk.Now()
	require.NoError(t, a.Confirm(ctx, "k.confirm"))
	assert.True(t, v.ValidAt(t1.Add(ttl-a.Tick()-time.Nanosecond)), "renewed at the call")

	g.shut.Store(true)
	before := g.updates.Load()
	ks := a.keys["k.confirm"]
	first := a.join("k.confirm", ks)
	<-g.entered // its renewal runs
	second := []*round{a.join("k.confirm", ks), a.join("k.confirm", ks), a.join("k.confirm", ks)}
	assert.NotSame(t, first, second[0])
	assert.Same(t, second[0], second[1])
	assert.Same(t, second[0], second[2])
	var step sync.WaitGroup
	step.Go(func() { a.Step(ctx) }) // waits for the renewals in flight
	g.open <- struct{}{}
	<-first.done
	<-g.entered // the second round's renewal (or Step's)
	g.open <- struct{}{}
	<-g.entered
	g.open <- struct{}{}
	step.Wait()
	<-second[0].done
	require.NoError(t, first.err)
	require.NoError(t, second[0].err)
	assert.Equal(t, int64(3), g.updates.Load()-before, "three waiting calls, one renewal; one of Step")
	assert.True(t, a.Holds("k.confirm"), "Step renewed after the Confirm rounds, on their revision")
	g.shut.Store(false)

	a.Release(ctx)
	require.ErrorIs(t, a.Confirm(ctx, "k.confirm"), ErrLost, "released")
}
