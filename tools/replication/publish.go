package replication

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

// Ack is the future of one submitted record.
type Ack struct {
	done chan struct{}
	seq  uint64
	err  error
	// result is, for a record Execute waits for, the Applier's result.
	result chan any
	stream int
	index  int  // the record's index in its batch
	l      *Log // set for ExecuteAsync
}

// Wait waits for the record's PubAck and returns its stream sequence,
// or an error wrapping ErrPublish, ErrPublishTimeout, ErrClosed or ctx's.
func (a *Ack) Wait(ctx context.Context) (uint64, error) {
	select {
	case <-a.done:
		return a.seq, a.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// streamPub group-commits one stream's records: everything submitted
// while the in-flight publishes are outstanding goes in the next message.
type streamPub struct {
	l      *Log
	stream int
	in     chan *pending
	slots  chan struct{} // one per publish in flight
}

type pending struct {
	rec Record
	ack *Ack
}

// Submit queues rec for stream's next message and returns at once.
func (l *Log) Submit(stream int, rec Record) *Ack {
	a := &Ack{done: make(chan struct{}), stream: stream}
	l.submit(stream, &pending{rec: rec, ack: a})
	return a
}

func (l *Log) submit(stream int, p *pending) {
	if stream < 0 || stream >= len(l.pubs) {
		p.ack.finish(0, fmt.Errorf("%w: no stream %d", ErrPublish, stream))
		return
	}
	select {
	case l.pubs[stream].in <- p:
	case <-l.closing:
		p.ack.finish(0, ErrClosed)
	}
}

// Publish submits rec and waits for its PubAck: the stream sequence of
// the message holding it.
func (l *Log) Publish(ctx context.Context, stream int, rec Record) (uint64, error) {
	return l.Submit(stream, rec).Wait(ctx)
}

func (a *Ack) finish(seq uint64, err error) {
	a.seq, a.err = seq, err
	close(a.done)
}

// run is the stream's publishing loop.
func (p *streamPub) run() {
	for {
		var first *pending
		select {
		case first = <-p.in:
		case <-p.l.closing:
			p.failQueued()
			return
		}
		p.slots <- struct{}{} // wait for a free slot: more records queue meanwhile
		group := p.gather(first)
		go p.publish(group)
	}
}

// gather takes first and whatever else is queued, up to the batch bounds.
func (p *streamPub) gather(first *pending) []*pending {
	group := []*pending{first}
	size := RecordSize(first.rec)
	for len(group) < p.l.cfg.MaxBatchRecords && size < p.l.cfg.MaxBatchBytes {
		select {
		case q := <-p.in:
			group = append(group, q)
			size += RecordSize(q.rec)
		default:
			return group
		}
	}
	return group
}

// publish sends group as one message and finishes every Ack of it.
func (p *streamPub) publish(group []*pending) {
	defer func() { <-p.slots }()
	b := Batch{Origin: p.l.origin, Seq: p.l.batchSeq.Add(1), Records: make([]Record, len(group))}
	for i, q := range group {
		b.Records[i] = q.rec
		q.ack.index = i
		if q.ack.result != nil {
			p.l.expect(p.stream, b.Seq, i, q.ack.result)
		}
	}
	seq, err := p.send(b)
	for i, q := range group {
		if err != nil && q.ack.result != nil {
			p.l.unexpect(p.stream, b.Seq, i)
		}
		q.ack.finish(seq, err)
	}
}

// send publishes b and waits for its PubAck.
func (p *streamPub) send(b Batch) (uint64, error) {
	msg := nats.NewMsg(Subject(p.stream))
	msg.Data = b.Append(nil)
	msg.Header.Set(nats.MsgIdHdr, p.l.origin+":"+strconv.Itoa(p.stream)+":"+strconv.FormatUint(b.Seq, 10))
	p.l.bytes.Add(uint64(len(msg.Data)))
	fut, err := p.l.js.PublishMsgAsync(msg)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrPublish, StreamName(p.stream), err)
	}
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

// failQueued fails the records still queued at Close.
func (p *streamPub) failQueued() {
	for {
		select {
		case q := <-p.in:
			q.ack.finish(0, ErrClosed)
		default:
			return
		}
	}
}

// Stream is the stream the record was submitted to.
func (a *Ack) Stream() int { return a.stream }
