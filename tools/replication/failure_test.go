package replication

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A PubAck error (the stream refuses the message: over its
// max_msg_size) fails every record of the message with ErrPublish; once
// the stream takes it again, the same records publish.
func TestPublishPubAckError(t *testing.T) {
	_, urls := cluster(t, 1)
	l := openLog(t, urls[0], "n1", Layout{Streams: 1, Replicas: 1}, t.TempDir(), nil)
	ctx := ctxT(t, time.Minute)
	si, err := l.JetStream().StreamInfo(l.Layout().StreamName(0))
	require.NoError(t, err)
	cfg := si.Config
	cfg.MaxMsgSize = 16
	_, err = l.JetStream().UpdateStream(&cfg)
	require.NoError(t, err)
	_, err = l.Publish(ctx, 0, addRec("seen", "https://example.com/a"))
	require.ErrorIs(t, err, ErrPublish)
	cfg.MaxMsgSize = -1
	_, err = l.JetStream().UpdateStream(&cfg)
	require.NoError(t, err)
	seq, err := l.Publish(ctx, 0, addRec("seen", "https://example.com/a"))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), seq, "the refused message was not stored")
}

// With two of three servers gone the stream has no quorum: a publish
// gets no PubAck within PublishTimeout and fails with ErrPublishTimeout.
func TestPublishTimeoutWithoutQuorum(t *testing.T) {
	srv, urls := cluster(t, 3)
	l := openLog(t, urls[0], "n1", Layout{Streams: 1, Replicas: 3}, t.TempDir(),
		func(c *Config) { c.PublishTimeout = 2 * time.Second })
	ctx := ctxT(t, time.Minute)
	// a stream just created may have no leader yet ("no responders"):
	// the first publish is retried as a client retries -TRYAGAIN
	require.Eventually(t, func() bool { _, err := l.Publish(ctx, 0, addRec("seen", "a")); return err == nil },
		30*time.Second, 100*time.Millisecond, "the stream takes a publish once it has a leader")
	srv[1].Shutdown()
	srv[2].Shutdown()
	_, err := l.Publish(ctx, 0, addRec("seen", "b"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrPublishTimeout) || errors.Is(err, ErrPublish), "%v", err)
	t.Logf("without quorum: %v", err)
}

// slowApply blocks its first Apply past the consumers' AckWait, so the
// server delivers the rest of the fetched messages again.
type slowApply struct {
	*memApplier
	first chan struct{}
}

func (s slowApply) Apply(stream int, seq uint64, origin string, recs []Record, results []any) error {
	select {
	case <-s.first:
	default:
		close(s.first)
		time.Sleep(time.Second)
	}
	return s.memApplier.Apply(stream, seq, origin, recs, results)
}

// Messages the consumer delivers again (AckWait passed before the
// acknowledgement) are skipped: every record is applied exactly once.
func TestFollowerRedelivery(t *testing.T) {
	_, urls := cluster(t, 1)
	l := openLog(t, urls[0], "n1", Layout{Streams: 1, Replicas: 1}, t.TempDir(),
		// FetchWait: the first pull brings a whole batch of 256 however
		// loaded the machine (one cut short by its wait is acknowledged at
		// once, and nothing is delivered again).
		func(c *Config) {
			c.AckWait, c.Checkpoint, c.FetchWait = 200*time.Millisecond, 5*time.Second, 5*time.Second
		})
	ctx := ctxT(t, time.Minute)
	var last uint64
	for i := 0; i < 300; i++ { // more than one pull of 256
		seq, err := l.Publish(ctx, 0, addRec("seen", fmt.Sprint(i)))
		require.NoError(t, err)
		last = seq
	}
	m := newMem()
	l.Follow([]int{0}, slowApply{m, make(chan struct{})})
	require.NoError(t, l.WaitApplied(ctx, 0, last))
	require.Eventually(t, func() bool { return l.Recorded(0) == last }, 30*time.Second, 20*time.Millisecond)
	assert.Positive(t, l.redelivered.Load(), "the server delivered some messages again")
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, n := range m.seqs {
		assert.Equal(t, 1, n, "stream %d seq %d applied once", k[0], k[1])
	}
	assert.Len(t, m.items, 300)
}

// An Apply error stops the follower at its position; it binds again
// from there and applies every record, and the error clears.
func TestFollowerApplyErrorRetries(t *testing.T) {
	_, urls := cluster(t, 1)
	l := openLog(t, urls[0], "n1", Layout{Streams: 1, Replicas: 1}, t.TempDir(), nil)
	ctx := ctxT(t, time.Minute)
	m := newMem()
	m.failNext = 3
	l.Follow([]int{0}, m)
	var last uint64
	for i := 0; i < 20; i++ {
		seq, err := l.Publish(ctx, 0, addRec("seen", fmt.Sprint(i)))
		require.NoError(t, err)
		last = seq
	}
	require.NoError(t, l.WaitApplied(ctx, 0, last))
	for i := 0; i < 20; i++ {
		assert.True(t, m.has("seen", fmt.Sprint(i)), "item %d", i)
	}
	assert.Equal(t, uint64(3), l.ApplyErrors(0))
	assert.Equal(t, uint64(0), l.Stopped(0))
	assert.Empty(t, l.FollowerError(0), "applying again: no error")
}

// brokenApplier fails every message from seq from on while broken is
// set, as a node whose disk is full does.
type brokenApplier struct {
	*memApplier
	from   uint64
	broken atomic.Bool
}

func (b *brokenApplier) Apply(stream int, seq uint64, origin string, recs []Record, results []any) error {
	if b.broken.Load() && seq >= b.from {
		return errors.New("no space left on device")
	}
	return b.memApplier.Apply(stream, seq, origin, recs, results)
}

// A follower that cannot apply a message stays at the message before
// it (Applied, Recorded and its consumer's ack floor), says why
// (FollowerError, ApplyErrors, one log line), and applies it with
// everything after it once the cause is gone.
func TestFollowerStopsOnApplyError(t *testing.T) {
	_, urls := cluster(t, 1)
	var logged syncLines
	l := openLog(t, urls[0], "n1", Layout{Streams: 1, Replicas: 1}, t.TempDir(),
		func(c *Config) { c.Logf = logged.printf })
	ctx := ctxT(t, 2*time.Minute)
	b := &brokenApplier{memApplier: newMem(), from: 3}
	b.broken.Store(true)
	l.Follow([]int{0}, b)
	var last uint64
	for i := range 6 {
		seq, err := l.Publish(ctx, 0, addRec("seen", fmt.Sprint(i)))
		require.NoError(t, err)
		last = seq
	}
	require.Eventually(t, func() bool { return l.ApplyErrors(0) >= 2 }, time.Minute, 20*time.Millisecond, "retried")
	assert.Equal(t, uint64(3), l.Stopped(0))
	assert.Equal(t, uint64(2), l.Applied(0), "nothing past the message it could not apply")
	assert.LessOrEqual(t, l.Recorded(0), uint64(2))
	if floor, err := l.NodeApplied(ctx, 0, "n1"); err == nil { // no consumer between two attempts
		assert.LessOrEqual(t, floor, uint64(2), "not acknowledged past it")
	}
	assert.Contains(t, l.FollowerError(0), "MBF_LOG_00 seq 3: apply: no space left on device")
	assert.False(t, b.has("seen", "3"))
	assert.Equal(t, 1, logged.count("stopped here"), "logged once, not at every retry: %q", logged.all())
	_, _, err := l.Execute(ctx, 0, addRec("seen", "6"))
	require.ErrorIs(t, err, ErrStopped, "a record behind the stop is not waited for")
	assert.ErrorContains(t, err, "no space left on device")
	last++

	b.broken.Store(false)
	require.NoError(t, l.WaitApplied(ctx, 0, last))
	for i := range 7 {
		assert.True(t, b.has("seen", fmt.Sprint(i)), "item %d", i)
	}
	assert.Equal(t, uint64(0), l.Stopped(0))
	assert.Empty(t, l.FollowerError(0))
	assert.Equal(t, 1, logged.count("MBF_LOG_00 seq 3 applied after"), "%q", logged.all())
}

// syncLines collects log lines from several goroutines.
type syncLines struct {
	mu    sync.Mutex
	lines []string
}

func (s *syncLines) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, fmt.Sprintf(format, args...))
}

func (s *syncLines) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

func (s *syncLines) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lines)
}

// A gap in the stream (entries purged while a node was down, or a new
// node after the retention dropped the start) makes the follower
// bootstrap and go on from the sequence the copy covers.
func TestFollowerGapBootstraps(t *testing.T) {
	_, urls := cluster(t, 1)
	layout := Layout{Streams: 1, Replicas: 1}
	dir := t.TempDir()
	ctx := ctxT(t, time.Minute)
	l := openLog(t, urls[0], "n1", layout, dir, nil)
	m := newMem()
	l.Follow([]int{0}, m)
	seq, err := l.Publish(ctx, 0, addRec("seen", "before"))
	require.NoError(t, err)
	require.NoError(t, l.WaitApplied(ctx, 0, seq))
	require.Eventually(t, func() bool { return l.Recorded(0) == seq }, 30*time.Second, 20*time.Millisecond)
	require.NoError(t, l.Close())

	w := openLog(t, urls[0], "writer", layout, t.TempDir(), nil)
	for i := 0; i < 5; i++ {
		_, err = w.Publish(ctx, 0, addRec("seen", fmt.Sprint("gone", i)))
		require.NoError(t, err)
	}
	covered, err := w.LastSeq(ctx, 0)
	require.NoError(t, err)
	require.NoError(t, w.JetStream().PurgeStream(w.Layout().StreamName(0), &nats.StreamPurgeRequest{Sequence: covered + 1}))
	after, err := w.Publish(ctx, 0, addRec("seen", "after"))
	require.NoError(t, err)

	for _, d := range []string{dir, t.TempDir()} { // the node back, and a new node
		m2 := newMem()
		m2.covered = covered
		l2 := openLog(t, urls[0], "n1", layout, d, nil)
		l2.Follow([]int{0}, m2)
		require.NoError(t, l2.WaitApplied(ctx, 0, after))
		assert.Equal(t, 1, m2.bootstrap, "one bootstrap")
		assert.True(t, m2.has("seen", "after"))
		assert.False(t, m2.has("seen", "gone0"), "purged entries come from the bootstrap, not the log")
		require.NoError(t, l2.Close())
	}
}
