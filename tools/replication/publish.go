package replication

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrPublish is returned (wrapped) when the log did not acknowledge a
// record: a PubAck error, no stream leader, the connection lost. Nothing
// is known to be in the log; the caller has set no bit and answers an
// error the client retries.
var ErrPublish = errors.New("replication: publish failed")

// ErrPublishTimeout is returned (wrapped) when no PubAck came within
// Config.PublishTimeout. The record may still reach the log (and then
// every node), but was not acknowledged.
var ErrPublishTimeout = errors.New("replication: publish timed out")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("replication: log closed")

// ErrStopped is returned (wrapped, with the follower's error) for a
// record of ExecuteAsync while this node's follower of its stream is
// stopped on a message it cannot apply (Log.Stopped): the record may be
// in the log, and then reaches every node that applies it, but this
// node answers nothing for it until the follower goes on.
var ErrStopped = errors.New("replication: this node's follower of the stream is stopped")

// Ack is the future of one submitted record: done once its PubAck
// came and, for a record of ExecuteAsync, once this node applied it.
type Ack struct {
	done    chan struct{}
	l       *Log
	stream  int
	execute bool // ExecuteAsync: done after the application here too

	mu     sync.Mutex
	left   int // events still awaited
	seq    uint64
	err    error
	result any // the Applier's result, for ExecuteAsync
}

func newAck(l *Log, stream int, execute bool) *Ack {
	a := &Ack{done: make(chan struct{}), l: l, stream: stream, execute: execute, left: 1}
	if execute {
		a.left = 2
	}
	return a
}

// Wait waits until the record is done and returns its stream sequence,
// or an error wrapping ErrPublish, ErrPublishTimeout, ErrClosed or ctx's.
func (a *Ack) Wait(ctx context.Context) (uint64, error) {
	seq, _, err := a.Result(ctx)
	return seq, err
}

// Result waits until the record is done (its PubAck, and for
// ExecuteAsync its application on this node) and returns its sequence
// and, for ExecuteAsync, the Applier's result; for ExecuteAsync it
// returns an error wrapping ErrStopped once this node's follower of the
// stream is stopped (the record is behind the message it cannot apply).
func (a *Ack) Result(ctx context.Context) (seq uint64, result any, err error) {
	var halted <-chan struct{}
	if a.execute {
		halted = a.l.halted(a.stream)
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		return 0, nil, ctx.Err()
	case <-halted:
		select {
		case <-a.done:
		default:
			return 0, nil, fmt.Errorf("%w: %s", ErrStopped, a.l.FollowerError(a.stream))
		}
	case <-a.l.closing:
		select {
		case <-a.done:
		default:
			return 0, nil, ErrClosed
		}
	}
	return a.seq, a.result, a.err
}

// published records the PubAck (or the publish's error, which finishes
// the Ack at once).
func (a *Ack) published(seq uint64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.left == 0 {
		return
	}
	if err != nil {
		a.err, a.left = err, 0
		close(a.done)
		return
	}
	a.seq = seq
	a.step()
}

// applied records the record's application on this node at seq.
func (a *Ack) applied(seq uint64, result any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.left == 0 {
		return
	}
	a.seq, a.result = seq, result
	a.step()
}

func (a *Ack) step() {
	if a.left--; a.left == 0 {
		close(a.done)
	}
}

// streamPub group-commits one stream's records: what is submitted while
// a message is in flight goes in the next one, sent when no message is
// in flight any more or, up to Config.MaxInFlight, once it holds
// Config.FlushBytes.
type streamPub struct {
	l      *Log
	stream int
	in     chan pending
	sent   chan struct{} // one per publish done
}

type pending struct {
	rec Record
	ack *Ack
}

// Submit queues rec for stream's next message and returns at once; the
// Ack is done at its PubAck.
func (l *Log) Submit(stream int, rec Record) *Ack {
	a := newAck(l, stream, false)
	l.submit(stream, pending{rec: rec, ack: a})
	return a
}

func (l *Log) submit(stream int, p pending) {
	if stream < 0 || stream >= len(l.pubs) {
		p.ack.published(0, fmt.Errorf("%w: no stream %d", ErrPublish, stream))
		return
	}
	select {
	case l.pubs[stream].in <- p:
	case <-l.closing:
		p.ack.published(0, ErrClosed)
	}
}

// Publish submits rec and waits for its PubAck: the stream sequence of
// the message holding it.
func (l *Log) Publish(ctx context.Context, stream int, rec Record) (uint64, error) {
	return l.Submit(stream, rec).Wait(ctx)
}

// run is the stream's publishing loop.
func (p *streamPub) run() {
	cfg := &p.l.cfg
	var group []pending
	size, inflight := 0, 0
	for {
		full := len(group) >= cfg.MaxBatchRecords || size >= cfg.MaxBatchBytes
		if len(group) > 0 && inflight < cfg.MaxInFlight && (inflight == 0 || full || size >= cfg.FlushBytes) {
			go p.publish(group)
			group, size, inflight = nil, 0, inflight+1
			continue
		}
		in := p.in
		if full {
			in = nil // wait for a publish to end
		}
		select {
		case q := <-in:
			group, size = p.gather(append(group, q), size+RecordSize(q.rec))
		case <-p.sent:
			inflight--
		case <-p.l.closing:
			for _, q := range group {
				q.ack.published(0, ErrClosed)
			}
			p.failQueued()
			return
		}
	}
}

// gather adds to group whatever else is queued, up to a message's
// bounds, and returns it with its size in bytes.
func (p *streamPub) gather(group []pending, size int) ([]pending, int) {
	for len(group) < p.l.cfg.MaxBatchRecords && size < p.l.cfg.MaxBatchBytes {
		select {
		case q := <-p.in:
			group = append(group, q)
			size += RecordSize(q.rec)
		default:
			return group, size
		}
	}
	return group, size
}

// publish sends group as one message and settles every Ack of it; the
// Acks of ExecuteAsync wait for the message's application here
// (Log.expect).
func (p *streamPub) publish(group []pending) {
	defer func() { p.sent <- struct{}{} }()
	b := Batch{Origin: p.l.origin, Seq: p.l.batchSeq.Add(1), Records: make([]Record, len(group))}
	var waiting []*Ack
	for i, q := range group {
		b.Records[i] = q.rec
		if q.ack.execute {
			if waiting == nil {
				waiting = make([]*Ack, len(group))
			}
			waiting[i] = q.ack
		}
	}
	if waiting != nil {
		p.l.expect(p.stream, b.Seq, waiting)
	}
	seq, err := p.send(b)
	if err != nil && waiting != nil {
		p.l.unexpect(p.stream, b.Seq)
	}
	for _, q := range group {
		q.ack.published(seq, err)
	}
}

// send publishes b and waits for its PubAck.
func (p *streamPub) send(b Batch) (uint64, error) {
	msg := nats.NewMsg(p.l.cfg.Layout.Subject(p.stream))
	msg.Data = b.Append(nil)
	msg.Header.Set(nats.MsgIdHdr, p.l.origin+":"+strconv.Itoa(p.stream)+":"+strconv.FormatUint(b.Seq, 10))
	p.l.bytes.Add(uint64(len(msg.Data)))
	fut, err := p.l.js.PublishMsgAsync(msg)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrPublish, p.l.cfg.Layout.StreamName(p.stream), err)
	}
	t := time.NewTimer(p.l.cfg.PublishTimeout)
	defer t.Stop()
	select {
	case ack := <-fut.Ok():
		return ack.Sequence, nil
	case err := <-fut.Err():
		return 0, fmt.Errorf("%w: %s: %v", ErrPublish, p.l.cfg.Layout.StreamName(p.stream), err)
	case <-t.C:
		return 0, fmt.Errorf("%w: %s after %v", ErrPublishTimeout, p.l.cfg.Layout.StreamName(p.stream), p.l.cfg.PublishTimeout)
	}
}

// failQueued fails the records still queued at Close.
func (p *streamPub) failQueued() {
	for {
		select {
		case q := <-p.in:
			q.ack.published(0, ErrClosed)
		default:
			return
		}
	}
}

// Stream is the stream the record was submitted to.
func (a *Ack) Stream() int { return a.stream }
