package replication

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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

// ErrTooLarge is returned (wrapped, with the sizes) for a record larger
// than one log message may hold (Log.MaxRecordBytes): retrying cannot
// help; the caller splits the write into records that fit, or refuses
// it.
var ErrTooLarge = errors.New("replication: record larger than a log message may hold")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("replication: log closed")

// ErrStopped is returned (wrapped, with the follower's error) for a
// record of ExecuteAsync while this node's follower of its stream is
// stopped on a message it cannot apply (Log.Stopped): the record may be
// in the log, and then reaches every node that applies it, but this
// node answers nothing for it until the follower goes on.
var ErrStopped = errors.New("replication: this node's follower of the stream is stopped")

// ErrSkipped is returned (wrapped) by an Ack of ExecuteAsync whose
// record the log discarded (its retention) before this node applied it:
// this node's follower bootstrapped over it from a peer whose copy
// holds it. The record is in the data of every node, but its result
// here is unknown: a retry of the write answers as a repeated one.
var ErrSkipped = errors.New("replication: the log discarded the record before this node applied it; a peer's copy holds it")

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

// sequence is the record's stream sequence once its PubAck came, else 0.
func (a *Ack) sequence() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seq
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
	if n, most := RecordSize(p.rec), l.MaxRecordBytes(); n > most {
		p.ack.published(0, fmt.Errorf("%w: %d bytes, the most is %d (half of NATS's max_payload of %d bytes, less a message's envelope)",
			ErrTooLarge, n, most, l.nc.MaxPayload()))
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

// run is the stream's publishing loop. It sends the messages in the
// order their records were submitted (each send is queued on the
// connection here, its PubAck awaited apart), so a stream holds one
// node's records in submission order unless a send fails.
func (p *streamPub) run() {
	cfg := &p.l.cfg
	var group []pending
	size, inflight := 0, 0
	for {
		bound := p.l.MaxRecordBytes()
		full := len(group) > 0 && (len(group) >= cfg.MaxBatchRecords || size >= bound)
		if len(group) > 0 && inflight < cfg.MaxInFlight && (inflight == 0 || full || size >= cfg.FlushBytes) {
			p.publish(group)
			group, size, inflight = nil, 0, inflight+1
			continue
		}
		in := p.in
		if full {
			in = nil // wait for a publish to end
		}
		select {
		case q := <-in:
			group, size = p.gather(append(group, q), size+RecordSize(q.rec), bound)
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

// gather adds to group whatever else is queued while group holds less
// than bound bytes (so a message holds less than bound plus one record)
// and returns it with its size in bytes.
func (p *streamPub) gather(group []pending, size, bound int) ([]pending, int) {
	for len(group) < p.l.cfg.MaxBatchRecords && size < bound {
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

// publish sends group as one message and settles every Ack of it once
// its PubAck comes (in a goroutine of its own); the Acks of
// ExecuteAsync wait for the message's application here (Log.expect).
func (p *streamPub) publish(group []pending) {
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
	fut, err := p.send(b)
	go func() {
		defer func() { p.sent <- struct{}{} }()
		var seq uint64
		if err == nil {
			seq, err = p.await(fut)
		}
		if err != nil && waiting != nil {
			p.l.unexpect(p.stream, b.Seq)
		}
		for _, q := range group {
			q.ack.published(seq, err)
		}
	}()
}

// send queues b on the connection.
func (p *streamPub) send(b Batch) (nats.PubAckFuture, error) {
	msg := nats.NewMsg(Subject(p.stream))
	msg.Data = b.Append(nil)
	msg.Header.Set(nats.MsgIdHdr, p.l.msgID(p.stream, b.Seq))
	p.l.bytes.Add(uint64(len(msg.Data)))
	fut, err := p.l.js.PublishMsgAsync(msg)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPublish, StreamName(p.stream), err)
	}
	return fut, nil
}

// await waits for a sent message's PubAck.
func (p *streamPub) await(fut nats.PubAckFuture) (uint64, error) {
	t := time.NewTimer(p.l.cfg.PublishTimeout)
	defer t.Stop()
	select {
	case ack := <-fut.Ok():
		return ack.Sequence, nil
	case err := <-fut.Err():
		return 0, fmt.Errorf("%w: %s: %v", ErrPublish, StreamName(p.stream), err)
	case <-t.C:
		return 0, fmt.Errorf("%w: %s after %v", ErrPublishTimeout, StreamName(p.stream), p.l.cfg.PublishTimeout)
	}
}

// msgID is the Nats-Msg-Id of this process's batch seq of stream.
func (l *Log) msgID(stream int, seq uint64) string {
	return l.origin + ":" + strconv.Itoa(stream) + ":" + strconv.FormatUint(seq, 10)
}

// MaxRecordBytes is the largest record Submit takes (RecordSize), and
// the size from which a message is sent without more records:
// Config.MaxBatchBytes, or less, so that a message (less than two such
// bounds) fits the max_payload of the NATS server connected to now with
// its envelope (the batch's framing and the Nats-Msg-Id header).
func (l *Log) MaxRecordBytes() int {
	return max(0, min(l.cfg.MaxBatchBytes, (int(l.nc.MaxPayload())-l.envelope)/2))
}

// envelopeOf is the most a message of origin takes beside its records'
// bytes: the batch's framing (entry.go) with the largest sequence and
// count, and the NATS header line with its largest Nats-Msg-Id.
func envelopeOf(origin string) int {
	framing := len(Batch{Origin: origin, Seq: math.MaxUint64}.Append(nil)) + binary.MaxVarintLen32
	header := len("NATS/1.0\r\n" + nats.MsgIdHdr + ": " + origin + ":255:" + strconv.FormatUint(math.MaxUint64, 10) + "\r\n\r\n")
	return framing + header
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
