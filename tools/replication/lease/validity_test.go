package lease

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeeperValidity: a lease is valid from its take until TTL - TTL/4
// after the start of its last successful write, on the keeper's clock:
// a failed renewal does not extend it, a successful one does, and a
// release ends it.
func TestKeeperValidity(t *testing.T) {
	e := startEmbedded(t)
	kv := openTestBucket(t, e.URLs(), "T_VALIDITY", time.Minute, 3)
	ctx := context.Background()
	const ttl = time.Minute // long: the injected clock, not the server's expiry, decides here
	f := &flakyKV{KV: kv}
	a, clk := newTestKeeper(t, f, "a", ttl, Key{Name: "k.valid", Candidate: true, Preferred: true})
	require.Nil(t, a.Validity("k.other"), "a key not followed")
	v := a.Validity("k.valid")
	require.False(t, v.ValidAt(clk.Now()), "not taken yet")
	require.Eventually(t, func() bool { a.Step(ctx); return a.Holds("k.valid") }, time.Minute, 50*time.Millisecond)
	t0 := clk.Now()
	bound := ttl - a.Tick()
	assert.True(t, v.ValidAt(t0))
	assert.True(t, v.ValidAt(t0.Add(bound-time.Nanosecond)))
	assert.False(t, v.ValidAt(t0.Add(bound)))

	f.down.Store(true)
	clk.advance(a.Tick())
	a.Step(ctx)
	require.True(t, a.Holds("k.valid"))
	assert.False(t, v.ValidAt(t0.Add(bound)), "a failed renewal extends nothing")

	f.down.Store(false)
	clk.advance(a.Tick())
	t1 := clk.Now()
	a.Step(ctx)
	require.True(t, a.Holds("k.valid"))
	assert.True(t, v.ValidAt(t1.Add(bound-time.Nanosecond)), "valid from the renewal's start")
	assert.False(t, v.ValidAt(t1.Add(bound)))

	a.Release(ctx)
	assert.False(t, v.ValidAt(t1), "released")
}
