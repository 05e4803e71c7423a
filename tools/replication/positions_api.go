package replication

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// The seam for failover and routing: what a node has applied, and how
// to catch up to the end of a stream before serving its slots.

// Applied is the last sequence of stream this node has applied (not
// necessarily synced); 0 when it does not follow the stream.
func (l *Log) Applied(stream int) uint64 {
	if f := l.follower(stream); f != nil {
		return f.applied.Load()
	}
	return 0
}

// Recorded is the last sequence of stream this node applied, synced
// and recorded (what it replays from after a restart).
func (l *Log) Recorded(stream int) uint64 { return l.pos.get(stream) }

// WaitApplied waits until this node has applied stream up to seq, or
// ctx ends (its error), or the log closes (ErrClosed).
func (l *Log) WaitApplied(ctx context.Context, stream int, seq uint64) error {
	f := l.follower(stream)
	if f == nil {
		return fmt.Errorf("%w: this node does not follow %s", ErrPublish, l.cfg.Layout.StreamName(stream))
	}
	for {
		f.mu.Lock()
		ch := f.changed
		f.mu.Unlock()
		if f.applied.Load() >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-l.closing:
			return ErrClosed
		}
	}
}

// LastSeq is the stream's last sequence as its leader has it.
func (l *Log) LastSeq(ctx context.Context, stream int) (uint64, error) {
	si, err := l.js.StreamInfo(l.cfg.Layout.StreamName(stream), nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("replication: %s: %w", l.cfg.Layout.StreamName(stream), err)
	}
	return si.State.LastSeq, nil
}

// DrainToLast waits until this node has applied stream up to its last
// sequence at the time of the call (read-your-writes before taking over
// a stream's slots) and returns that sequence. While this node applies
// nothing for DrainNudgeAfter and is behind, it publishes an empty
// message to the stream (a nudge, which every Applier applies as
// nothing): after the power cut of every node a replica of the stream
// may stay short of its leader, and the consumer reading it deliver
// nothing, until the stream's next write, which makes the replica
// catch up (nats-server resets a replica whose last sequence is not the
// new entry's previous one); the node about to serve the stream's slots
// is the one that would write next.
func (l *Log) DrainToLast(ctx context.Context, stream int) (uint64, error) {
	last, err := l.LastSeq(ctx, stream)
	if err != nil {
		return 0, err
	}
	for {
		from := l.Applied(stream)
		wctx, cancel := context.WithTimeout(ctx, DrainNudgeAfter)
		err := l.WaitApplied(wctx, stream, last)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return last, err
		}
		if l.Applied(stream) == from {
			if err := l.nudge(ctx, stream); err != nil {
				return last, err
			}
		}
	}
}

// DrainNudgeAfter is how long DrainToLast waits with nothing applied
// before it nudges the stream.
const DrainNudgeAfter = 2 * time.Second

// nudge publishes an empty message (no record) to stream, counted in
// Log.Nudges and logged.
func (l *Log) nudge(ctx context.Context, stream int) error {
	b := Batch{Origin: l.origin, Seq: l.batchSeq.Add(1)}
	msg := nats.NewMsg(l.cfg.Layout.Subject(stream))
	msg.Data = b.Append(nil)
	msg.Header.Set(nats.MsgIdHdr, l.msgID(stream, b.Seq))
	ack, err := l.js.PublishMsg(msg, nats.Context(ctx))
	if err != nil {
		return fmt.Errorf("%w: %s: nudge: %v", ErrPublish, l.cfg.Layout.StreamName(stream), err)
	}
	l.nudges.Add(1)
	l.logf("replication: %s: nothing applied for %v at seq %d, behind the log: nudged it with an empty message at seq %d",
		l.cfg.Layout.StreamName(stream), DrainNudgeAfter, l.Applied(stream), ack.Sequence)
	return nil
}

// NodeAppliedWait bounds one read of a node's durable position
// (NodeApplied): nats-server may leave a JetStream API request
// unanswered (seen at a cluster's start: a WAITAOF 1 2 polling the
// positions answered [1 0] only at its 60 s timeout, every node's
// position past its writes long before), and a caller that polls
// positions until they cover a write (WAIT, WAITAOF) asks again rather
// than waiting out its own timeout on one lost request.
const NodeAppliedWait = time.Second

// Nudges counts the empty messages DrainToLast published (on every
// stream) since Open.
func (l *Log) Nudges() uint64 { return l.nudges.Load() }

// NodeApplied is the durable position of node on stream: the ack floor
// of its consumer, which it moves only after its local Sync. 0 when the
// node has no consumer there. It waits at most NodeAppliedWait (or ctx)
// for the answer, else returns an error wrapping
// context.DeadlineExceeded.
func (l *Log) NodeApplied(ctx context.Context, stream int, node string) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, NodeAppliedWait)
	defer cancel()
	ci, err := l.js.ConsumerInfo(l.cfg.Layout.StreamName(stream), "mbf_"+node, nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("replication: %s consumer of %s: %w", l.cfg.Layout.StreamName(stream), node, err)
	}
	return ci.AckFloor.Stream, nil
}

// FollowerError is the error that stopped this node's follower of
// stream (an Applier error, or NATS's), "" once it applies again, when
// none, or when not following.
func (l *Log) FollowerError(stream int) string {
	if f := l.follower(stream); f != nil {
		if s, ok := f.lastErr.Load().(string); ok {
			return s
		}
	}
	return ""
}

// Stopped is the sequence of stream at which this node's follower is
// stopped because the Applier failed to apply it (it retries with a
// growing pause; Applied stays below it), 0 while it applies, or when
// not following.
func (l *Log) Stopped(stream int) uint64 {
	if f := l.follower(stream); f != nil {
		return f.stopped.Load()
	}
	return 0
}

// ApplyErrors counts the Applier's failed attempts on stream since
// Follow (0 when not following).
func (l *Log) ApplyErrors(stream int) uint64 {
	if f := l.follower(stream); f != nil {
		return f.applyErrors.Load()
	}
	return 0
}

// StreamPositions is one stream's end and the durable positions of the
// nodes asked about (Log.Positions).
type StreamPositions struct {
	// Last is the stream's last sequence; Err, when not nil, the error
	// reading it (Last is then 0 and Nodes empty).
	Last uint64
	Err  error
	// Nodes is each asked node's durable position (the ack floor of its
	// consumer "mbf_NODE"); a node without a consumer on the stream
	// (it never bound it) is absent, and so is one whose consumer
	// could not be read (NodeErrs).
	Nodes    map[string]uint64
	NodeErrs map[string]error
}

// Positions reads every stream's last sequence and the durable
// positions of nodes there, the streams concurrently (one StreamInfo
// and one ConsumerInfo per node each), all within ctx.
func (l *Log) Positions(ctx context.Context, nodes []string) []StreamPositions {
	out := make([]StreamPositions, l.cfg.Layout.Streams)
	var wg sync.WaitGroup
	for st := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[st] = l.streamPositions(ctx, st, nodes)
		}()
	}
	wg.Wait()
	return out
}

func (l *Log) streamPositions(ctx context.Context, stream int, nodes []string) StreamPositions {
	sp := StreamPositions{Nodes: map[string]uint64{}, NodeErrs: map[string]error{}}
	if sp.Last, sp.Err = l.LastSeq(ctx, stream); sp.Err != nil {
		return sp
	}
	for _, n := range nodes {
		got, err := l.NodeApplied(ctx, stream, n)
		switch {
		case errors.Is(err, nats.ErrConsumerNotFound):
		case err != nil:
			sp.NodeErrs[n] = err
		default:
			sp.Nodes[n] = got
		}
	}
	return sp
}
