package replication

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A log that lost its tail past a node's recorded position (a power cut
// of every node whose JetStream stores had not synced it) gives the
// lost sequences to new records: the node, opened again, applies them
// instead of skipping them as applied already. The stream is deleted
// here, the loss at its largest: every sequence gone.
func TestPositionPastLastRewinds(t *testing.T) {
	_, urls := cluster(t, 1)
	layout := Layout{Streams: 1, Replicas: 1}
	dir := t.TempDir()
	ctx := ctxT(t, time.Minute)
	l := openLog(t, urls[0], "n1", layout, dir, nil)
	l.Follow([]int{0}, newMem())
	var seq uint64
	for _, it := range []string{"a", "b", "c"} {
		var err error
		seq, err = l.Publish(ctx, 0, addRec("seen", it))
		require.NoError(t, err)
	}
	require.NoError(t, l.WaitApplied(ctx, 0, seq))
	require.Eventually(t, func() bool { return l.Recorded(0) == seq }, 30*time.Second, 20*time.Millisecond)
	require.NoError(t, l.JetStream().DeleteStream(layout.StreamName(0)))
	require.NoError(t, l.Close())

	var lines syncLines
	l2 := openLog(t, urls[0], "n1", layout, dir, func(c *Config) { c.Logf = lines.printf })
	assert.Zero(t, l2.Recorded(0), "the position is the log's last sequence")
	m := newMem()
	l2.Follow([]int{0}, m)
	after, err := l2.Publish(ctx, 0, addRec("seen", "after"))
	require.NoError(t, err)
	require.LessOrEqual(t, after, seq, "the new record takes a lost sequence")
	require.NoError(t, l2.WaitApplied(ctx, 0, after))
	assert.True(t, m.has("seen", "after"), "the record at a lost sequence is applied")
	assert.Equal(t, 1, lines.count("past the log's last sequence"), "logged: %v", lines.all())
}

// The log loses its tail past a node's position and new records take
// the lost sequences and pass the position before the node looks (the
// power cut of every node, then writes through the nodes up first):
// comparing the position with the log's last sequence sees nothing
// wrong, yet the message at the position is another. The node, while
// it runs (reopen=false: its consumer is lost with the stream and it
// binds again) or opened again (reopen=true), applies every new record.
func TestPositionRewoundWhenLogDiverges(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		t.Run(fmt.Sprint("reopen=", reopen), func(t *testing.T) {
			_, urls := cluster(t, 1)
			layout := Layout{Streams: 1, Replicas: 1}
			dir := t.TempDir()
			ctx := ctxT(t, 2*time.Minute)
			var lines syncLines
			l := openLog(t, urls[0], "n1", layout, dir, func(c *Config) { c.Logf = lines.printf })
			m := newMem()
			l.Follow([]int{0}, m)
			var seq uint64
			for _, it := range []string{"a", "b", "c"} {
				var err error
				seq, err = l.Publish(ctx, 0, addRec("old", it))
				require.NoError(t, err)
			}
			require.Eventually(t, func() bool { return l.Recorded(0) == seq }, 30*time.Second, 20*time.Millisecond)
			if reopen {
				require.NoError(t, l.Close())
			}
			nc, err := nats.Connect(urls[0])
			require.NoError(t, err)
			defer nc.Close()
			js, err := nc.JetStream()
			require.NoError(t, err)
			require.NoError(t, js.DeleteStream(layout.StreamName(0)))

			other := openLog(t, urls[0], "n2", layout, t.TempDir(), nil) // creates the stream again
			news := []string{"w", "x", "y", "z"}
			for _, it := range news {
				last, err := other.Publish(ctx, 0, addRec("new", it))
				require.NoError(t, err)
				require.Greater(t, last, uint64(0))
			}
			if reopen {
				l = openLog(t, urls[0], "n1", layout, dir, func(c *Config) { c.Logf = lines.printf })
				l.Follow([]int{0}, m)
			}
			require.NoError(t, l.WaitApplied(ctx, 0, uint64(len(news))))
			for _, it := range news {
				require.Eventually(t, func() bool { return m.has("new", it) }, 30*time.Second, 20*time.Millisecond,
					"the record %q at a lost sequence is applied; logged: %v", it, lines.all())
			}
			require.Positive(t, l.Rewinds(0), "the rewind is counted")
			require.Positive(t, lines.count("applying again from 1"), "logged: %v", lines.all())
		})
	}
}

// gatedApplier applies nothing until open is closed.
type gatedApplier struct {
	*memApplier
	open chan struct{}
}

func (g *gatedApplier) Apply(stream int, seq uint64, origin string, recs []Record, results []any) error {
	<-g.open
	return g.memApplier.Apply(stream, seq, origin, recs, results)
}

// A drain behind a follower that applies nothing for DrainNudgeAfter
// nudges the stream with an empty message (after the power cut of every
// node a replica may stay short of its leader until the stream's next
// write, and the consumer reading it deliver nothing), and ends once
// the follower applies: the nudge's empty message applies as nothing.
func TestDrainNudgesStalledStream(t *testing.T) {
	_, urls := cluster(t, 1)
	layout := Layout{Streams: 1, Replicas: 1}
	ctx := ctxT(t, 2*time.Minute)
	var lines syncLines
	l := openLog(t, urls[0], "n1", layout, t.TempDir(), func(c *Config) { c.Logf = lines.printf })
	g := &gatedApplier{memApplier: newMem(), open: make(chan struct{})}
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(g.open) }) }) // before l.Close, which waits for the follower
	l.Follow([]int{0}, g)
	seq, err := l.Publish(ctx, 0, addRec("k", "a"))
	require.NoError(t, err)

	drained := make(chan error, 1)
	go func() { _, err := l.DrainToLast(ctx, 0); drained <- err }()
	require.Eventually(t, func() bool { last, err := l.LastSeq(ctx, 0); return err == nil && last > seq },
		time.Minute, 50*time.Millisecond, "the stalled drain nudges the stream")
	assert.Positive(t, l.Nudges(), "logged: %v", lines.all())
	release.Do(func() { close(g.open) })
	require.NoError(t, <-drained)
	require.NoError(t, l.WaitApplied(ctx, 0, seq+1))
	assert.True(t, g.has("k", "a"))
	assert.Positive(t, lines.count("nudged it with an empty message"), "logged: %v", lines.all())
}

// After the power cut of every node the log may lose the tail past a
// point below a follower's position and new records take those
// sequences and pass the position while its session runs (a stream
// leader that held the old tail gives way to one that lost it; seen
// with node1's consumers on a replica nats-server reset again and
// again). Checking only the message at the applied sequence sees
// nothing wrong once the follower went on in the new history; the new
// records below it were skipped. Here the follower applied the old
// records up to 3 and recorded 3; then the stream's history changed
// (deleted, and 5 new records from another node) and the follower
// goes on in each way it can without binding first: bypassing its
// stalled consumer from its position 3 (unstall), recording a position
// 5 its consumer reached in the new history (checkpoint), or binding
// again from there (bind). Each refuses to go on from a position the
// log no longer holds (ErrDiverged) or rewinds it, and every new record
// is applied.
func TestFollowerGoesOnOnlyFromHeldPosition(t *testing.T) {
	for _, tc := range []struct {
		name    string
		applied uint64 // the follower's applied sequence when the step runs, in the new history past 3
		step    func(ctx context.Context, f *follower) error
	}{
		{"unstall", 3, func(ctx context.Context, f *follower) error { return f.unstall(ctx) }},
		{"checkpoint", 5, func(_ context.Context, f *follower) error { return f.checkpoint(nil) }},
		{"bind", 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, urls := cluster(t, 1)
			layout := Layout{Streams: 1, Replicas: 1}
			name := layout.StreamName(0)
			ctx := ctxT(t, 2*time.Minute)
			var lines syncLines
			l := openLog(t, urls[0], "n1", layout, t.TempDir(), func(c *Config) { c.Logf = lines.printf })
			for _, it := range []string{"a", "b", "c"} {
				_, err := l.Publish(ctx, 0, addRec("old", it))
				require.NoError(t, err)
			}
			oldID, err := l.idAt(ctx, name, 3)
			require.NoError(t, err)
			require.NoError(t, l.pos.set(0, 3, oldID), "the old records are applied and 3 recorded")

			news := replaceStream(t, ctx, l, urls[0], layout)

			m := newMem()
			f := l.newFollower(0, m)
			f.applied.Store(tc.applied)
			f.lastID, err = l.idAt(ctx, name, tc.applied)
			require.NoError(t, err)
			if tc.applied == 3 {
				f.lastID = oldID
			}
			if tc.step != nil {
				require.ErrorIs(t, tc.step(ctx, f), ErrDiverged, "the follower does not go on from a position the log no longer holds")
			}
			l.start(f)
			for _, it := range news {
				require.Eventually(t, func() bool { return m.has("new", it) }, 20*time.Second, 20*time.Millisecond,
					"the new record %q is applied; logged: %v", it, lines.all())
			}
			require.Positive(t, l.Rewinds(0), "the rewind is counted")
			require.Positive(t, lines.count("applying again from 1"), "logged: %v", lines.all())
		})
	}
}

// A consumer that goes back (nats-server moves it to its stream's last
// sequence when the stream lost entries) delivers again sequences the
// follower applied: the message applied there is skipped, another one
// (a new record at a sequence the lost history had) ends the session
// with ErrDiverged instead of being skipped as applied, and the
// follower, started again, applies every new record.
func TestFollowerRedeliveryOfAnotherMessage(t *testing.T) {
	o := appliedOld(t)
	ctx, l, f, m, layout, name := o.ctx, o.l, o.f, o.m, o.layout, o.layout.StreamName(0)
	old4, err := l.JetStream().GetMsg(name, 4)
	require.NoError(t, err)
	require.NoError(t, f.apply(ctx, 4, old4.Data, old4.Header.Get(nats.MsgIdHdr)), "the message applied at 4, delivered again, is skipped")

	news := replaceStream(t, ctx, l, o.url, layout)
	new4, err := l.JetStream().GetMsg(name, 4)
	require.NoError(t, err)
	require.ErrorIs(t, f.apply(ctx, 4, new4.Data, new4.Header.Get(nats.MsgIdHdr)), ErrDiverged,
		"a new record delivered at a sequence applied in the lost history is not skipped")
	require.False(t, m.has("new", "y"))

	l.start(f)
	for _, it := range news {
		require.Eventually(t, func() bool { return m.has("new", it) }, 20*time.Second, 20*time.Millisecond, "the new record %q is applied", it)
	}
	require.Positive(t, l.Rewinds(0), "the rewind is counted")
}

// replaceStream deletes l's stream 0 and has another node's log create
// it again with the records "new" v, w, x, y and z (sequences 1 to 5: a
// log that lost its entries, new records at their sequences); it
// returns the new records' items.
func replaceStream(t *testing.T, ctx context.Context, l *Log, url string, layout Layout) []string {
	t.Helper()
	require.NoError(t, l.JetStream().DeleteStream(layout.StreamName(0)))
	other := openLog(t, url, "n2", layout, t.TempDir(), nil)
	news := []string{"v", "w", "x", "y", "z"}
	for _, it := range news {
		_, err := other.Publish(ctx, 0, addRec("new", it))
		require.NoError(t, err)
	}
	return news
}

// A consumer on another server than the stream's leader reads that
// server's replica, which after a power cut of every node may hold
// other messages than the leader at some sequences while the message
// at the follower's position matches (nats-server appends to a replica
// whose last sequence matches without comparing what it holds): the
// checkpoint checks every message applied since the last one against
// the leader (ErrDiverged here, where the new history holds the old
// message at 5 and new ones at 1 to 4), and the follower, started
// again, applies every new record. A follower whose consumer is on the
// leader records without that check.
func TestFollowerChecksAReplicaBesideTheLeader(t *testing.T) {
	o := appliedOld(t)
	ctx, l, f, m, ids, layout, name := o.ctx, o.l, o.f, o.m, o.ids, o.layout, o.layout.StreamName(0)
	leader, err := l.streamLeader(ctx, 0)
	require.NoError(t, err)

	require.NoError(t, l.JetStream().DeleteStream(name))
	_ = openLog(t, o.url, "n2", layout, t.TempDir(), nil) // creates the stream again
	news := []string{"v", "w", "x", "y", "z"}
	for i, it := range news {
		msg := nats.NewMsg(layout.Subject(0))
		msg.Data = Batch{Origin: "n2/test", Seq: uint64(i + 1), Records: []Record{addRec("new", it)}}.Append(nil)
		msg.Header.Set(nats.MsgIdHdr, fmt.Sprintf("n2/test:0:%d", i+1))
		if i == 4 {
			msg.Header.Set(nats.MsgIdHdr, ids[4]) // the message at the follower's position matches
		}
		_, err := l.JetStream().PublishMsg(msg)
		require.NoError(t, err)
	}
	f.server = leader
	moved, err := f.verifySince()
	require.NoError(t, err, "a consumer on the leader is not checked message by message")
	require.False(t, moved)
	f.server = leader + "-elsewhere"
	require.ErrorIs(t, f.checkpoint(nil), ErrDiverged, "the messages applied below the position are checked against the leader")
	require.Zero(t, l.Recorded(0), "nothing recorded")
	require.Zero(t, f.applied.Load(), "the position goes back to the last one checked")
	require.Positive(t, l.Rewinds(0), "the rewind is counted")

	l.start(f)
	for _, it := range news {
		require.Eventually(t, func() bool { return m.has("new", it) }, 20*time.Second, 20*time.Millisecond, "the new record %q is applied", it)
	}
}

// oldApplied is a one-server cluster whose stream 0 holds the records
// "old" a to e (sequences 1 to 5), applied by a follower of node n1's
// log as its consumer would deliver them (appliedOld).
type oldApplied struct {
	ctx    context.Context
	url    string
	layout Layout
	l      *Log
	f      *follower
	m      *memApplier
	ids    []string // the messages' Nats-Msg-Ids
}

// appliedOld sets up an oldApplied, stopped when the test ends.
func appliedOld(t *testing.T) oldApplied {
	t.Helper()
	_, urls := cluster(t, 1)
	o := oldApplied{ctx: ctxT(t, 2*time.Minute), url: urls[0], layout: Layout{Streams: 1, Replicas: 1}, m: newMem()}
	o.l = openLog(t, o.url, "n1", o.layout, t.TempDir(), nil)
	for _, it := range []string{"a", "b", "c", "d", "e"} {
		_, err := o.l.Publish(o.ctx, 0, addRec("old", it))
		require.NoError(t, err)
	}
	o.f = o.l.newFollower(0, o.m)
	for seq := uint64(1); seq <= 5; seq++ {
		raw, err := o.l.JetStream().GetMsg(o.layout.StreamName(0), seq)
		require.NoError(t, err)
		o.ids = append(o.ids, raw.Header.Get(nats.MsgIdHdr))
		require.NoError(t, o.f.apply(o.ctx, seq, raw.Data, o.ids[seq-1]))
	}
	return o
}
