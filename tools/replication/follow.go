package replication

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Applier is what a node does with the entries of the streams it follows.
type Applier interface {
	// Apply applies the records of the message at seq of stream, in
	// order, from origin (a node id); recs may be empty (a drain's
	// nudge: Log.DrainToLast). It must be idempotent: a message
	// may be applied again after a restart or a redelivery. When
	// results is not nil (this process published the message and
	// Execute calls wait for it), it has one slot per record for its
	// result, which goes to the Execute call that published the record.
	// An error means the message could not be applied on this node
	// (its disk, descriptors or limits; closing): the follower stops at
	// it, its position does not move past it (nothing after it is
	// applied or acknowledged), and it is applied again after a pause
	// that grows from ApplyRetryFirst to ApplyRetryMax until Apply
	// returns nil (Log.Stopped, FollowerError, ApplyErrors). An error
	// that is the record's own result on every node (a command's error
	// reply) is not Apply's error but its result.
	Apply(stream int, seq uint64, origin string, recs []Record, results []any) error
	// Sync makes everything applied so far durable locally (the
	// filters' msync); the position is recorded after it.
	Sync(stream int) error
	// Bootstrap copies stream's slots from a peer when the log no
	// longer holds the entries after this node's position (a new node,
	// or one behind the retention), and returns the sequence the copy
	// covers: every entry up to it is in the copied data.
	Bootstrap(ctx context.Context, stream int) (uint64, error)
}

// ErrGap is returned (wrapped) by a follower that found entries missing
// after its position and could not bootstrap.
var ErrGap = errors.New("replication: entries missing after the applied position")

// follower applies one stream.
type follower struct {
	l       *Log
	stream  int
	a       Applier
	applied atomic.Uint64 // applied (not yet synced) sequence
	lastID  string        // the Nats-Msg-Id of the message at applied, "" when unknown (a bootstrap, no mark there) (run's goroutine only)
	// since holds the Nats-Msg-Id of each message applied after the
	// position sinceBase (the last bind or checkpoint), in order (run's
	// goroutine only): a message delivered again is checked against it
	// (redelivered).
	since     []string
	sinceBase uint64
	// server is the server the consumer is on, its replica the one it
	// reads (placeConsumer); "" when not clustered (run's goroutine only).
	server  string
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each advance
	sub     *nats.Subscription
	lastErr atomic.Value // string: the error that ended the last session ("" once applying again)
	// stopped is the sequence whose Apply failed last, 0 while applying;
	// applyErrors counts the failed Apply calls; fails (run's goroutine
	// only) those in a row, which set the pause before the next attempt.
	stopped     atomic.Uint64
	applyErrors atomic.Uint64
	fails       int
	halted      chan struct{} // closed while stopped (under mu; a new one at resume)
}

// The pause before a stopped follower applies its message again: it
// doubles from ApplyRetryFirst at each failure in a row, up to
// ApplyRetryMax. Other session errors (NATS) pause ApplyRetryFirst.
const (
	ApplyRetryFirst = 500 * time.Millisecond
	ApplyRetryMax   = 5 * time.Second
)

// durable is this node's consumer name.
func (l *Log) durable() string { return "mbf_" + l.cfg.Node }

// Follow starts applying streams with a, from the recorded positions.
// Call it once.
func (l *Log) Follow(streams []int, a Applier) {
	for _, i := range streams {
		l.start(l.newFollower(i, a))
	}
}

// newFollower is a follower of stream i at its recorded position.
func (l *Log) newFollower(i int, a Applier) *follower {
	f := &follower{l: l, stream: i, a: a, changed: make(chan struct{}), halted: make(chan struct{})}
	f.applied.Store(l.pos.get(i))
	f.lastID = f.markedID()
	return f
}

// markedID is the id of the message at the applied position when the
// newest mark is there (a restart, a rewind to a mark), else "".
func (f *follower) markedID() string {
	if m, ok := f.l.pos.newest(f.stream); ok && m.seq == f.applied.Load() {
		return m.id
	}
	return ""
}

// start registers f as its stream's follower and runs it until Close.
func (l *Log) start(f *follower) {
	l.mu.Lock()
	l.followers[f.stream] = f
	l.mu.Unlock()
	l.wg.Add(1)
	go f.run()
}

func (l *Log) follower(i int) *follower {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.followers[i]
}

// run fetches and applies until Close, reconnecting on errors.
func (f *follower) run() {
	defer f.l.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.l.closing; cancel() }()
	for ctx.Err() == nil {
		err := f.session(ctx)
		f.unbind()
		if err != nil && !errors.Is(err, errRebind) && ctx.Err() == nil {
			f.lastErr.Store(err.Error())
			pause(ctx, f.retryPause())
		}
	}
}

// retryPause is the pause after a session's error: ApplyRetryFirst,
// doubled for each Apply failure in a row after the first, at most
// ApplyRetryMax.
func (f *follower) retryPause() time.Duration {
	d := ApplyRetryFirst
	for i := 1; i < f.fails && d < ApplyRetryMax; i++ {
		d *= 2
	}
	return min(d, ApplyRetryMax)
}

// errRebind ends a session after a bootstrap: the next one binds anew.
var errRebind = errors.New("replication: rebind")

// unbind drops the subscription, leaving the consumer (bind); the next
// session replaces it.
func (f *follower) unbind() {
	if f.sub != nil {
		_ = f.sub.Unsubscribe()
		f.sub = nil
	}
}

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// session binds the consumer and applies until an error or ctx ends.
// Each pull asks for up to 256 messages and applies each as it arrives
// (a reply waits for its record's application on the origin). A
// consumer that delivers nothing for StallAfter while the stream's
// leader holds more is bypassed (unstall).
func (f *follower) session(ctx context.Context) error {
	if err := f.bind(ctx); err != nil {
		return err
	}
	if f.stopped.Load() == 0 {
		f.lastErr.Store("")
	}
	last, delivered := time.Now(), time.Now()
	var pendingAck *nats.Msg
	for ctx.Err() == nil {
		mb, err := f.sub.FetchBatch(256, nats.MaxWait(f.l.cfg.FetchWait))
		if err != nil {
			return err
		}
		n := 0
		for m := range mb.Messages() {
			if err := f.handle(ctx, m); err != nil {
				return err
			}
			pendingAck, n, delivered = m, n+1, time.Now()
			if time.Since(last) >= f.l.cfg.Checkpoint {
				if err := f.checkpoint(pendingAck); err != nil {
					return err
				}
				pendingAck, last = nil, time.Now()
			}
		}
		if err := mb.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		if pendingAck != nil && (n < 256 || time.Since(last) >= f.l.cfg.Checkpoint) {
			if err := f.checkpoint(pendingAck); err != nil {
				return err
			}
			pendingAck, last = nil, time.Now()
		}
		if n == 0 && time.Since(delivered) >= StallAfter {
			if err := f.unstall(ctx); err != nil {
				return err
			}
			delivered = time.Now()
		}
	}
	if pendingAck != nil {
		return f.checkpoint(pendingAck)
	}
	return nil
}

// StallAfter is how long a follower's consumer may deliver nothing
// while the stream's leader holds messages past the applied position
// before the follower applies them from the leader (unstall).
const StallAfter = 3 * time.Second

// unstall applies, from the stream's leader (one message get each), the
// messages after the applied position up to the leader's last sequence,
// when it holds any: the consumer delivered nothing for StallAfter
// although the log holds them. It first checks that the leader holds, at
// the applied position, the message applied there (ErrDiverged when not,
// or when the log ends before the position: the log lost the entries
// after a point below it, and new ones may have taken their sequences;
// the next bind rewinds the position), so that it never goes on in
// another history than the one applied. After the power cut of every
// node a consumer (one replica, placed on any of the stream's servers)
// may read a replica short of its leader that nats-server does not
// repair (seen: a replica reset again and again on "last sequence
// mismatch", its consumers delivering nothing for minutes although the
// stream was written meanwhile). It records the position, logs and
// counts it (Log.Stalls) and returns errRebind: the next session binds a
// new consumer after it, which nats-server may place elsewhere. A
// message the leader does not hold ends the pass there: the next
// session's consumer meets the gap as handle does. nil when the leader
// holds nothing more.
func (f *follower) unstall(ctx context.Context) error {
	from := f.applied.Load()
	last, err := f.l.LastSeq(ctx, f.stream)
	if err != nil {
		return err
	}
	if err := f.l.checkHeld(f.stream, from, f.lastID); err != nil {
		return err
	}
	if last < from {
		return fmt.Errorf("%w: %s: position %d is past the log's last sequence %d", ErrDiverged, f.l.cfg.Layout.StreamName(f.stream), from, last)
	}
	if last == from {
		return nil
	}
	name := f.l.cfg.Layout.StreamName(f.stream)
	for seq := from + 1; seq <= last; seq++ {
		raw, err := f.l.js.GetMsg(name, seq, nats.Context(ctx))
		if errors.Is(err, nats.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return fmt.Errorf("replication: %s seq %d: %w", name, seq, err)
		}
		if err := f.apply(ctx, seq, raw.Data, raw.Header.Get(nats.MsgIdHdr)); err != nil {
			return err
		}
	}
	f.l.stalls[f.stream].Add(1)
	f.l.logf("replication: %s: the consumer delivered nothing for %v at seq %d while the log's last sequence is %d: applied from the stream's leader up to %d, binding a new consumer",
		name, StallAfter, from, last, f.applied.Load())
	if err := f.checkpoint(nil); err != nil {
		return err
	}
	return errRebind
}

// handle applies the message m of the consumer (apply).
func (f *follower) handle(ctx context.Context, m *nats.Msg) error {
	meta, err := m.Metadata()
	if err != nil {
		return err
	}
	return f.apply(ctx, meta.Sequence.Stream, m.Data, m.Header.Get(nats.MsgIdHdr))
}

// apply applies the message at seq (its data and its Nats-Msg-Id), or
// finds a gap and bootstraps; a message at or below the applied
// position is skipped (a redelivery).
func (f *follower) apply(ctx context.Context, seq uint64, data []byte, id string) error {
	applied := f.applied.Load()
	switch {
	case seq <= applied:
		return f.redelivered(seq, id)
	case seq > applied+1:
		return f.bootstrap(ctx, applied, seq)
	}
	b, err := Decode(data)
	if err != nil {
		return fmt.Errorf("%s seq %d: %w", f.l.cfg.Layout.StreamName(f.stream), seq, err)
	}
	acks := f.l.waiting(f.stream, &b)
	var results []any
	if acks != nil {
		results = make([]any, len(b.Records))
	}
	if err := f.a.Apply(f.stream, seq, originNode(b.Origin), b.Records, results); err != nil {
		return f.stop(ctx, seq, fmt.Errorf("apply: %w", err))
	}
	f.resume(seq)
	if acks != nil {
		f.l.deliver(f.stream, &b, seq, acks, results)
	}
	f.lastID = id
	f.since = append(f.since, id)
	f.advance(seq)
	return nil
}

// redelivered checks a message the consumer delivered again at seq, at
// or below the applied position: the message applied there is skipped;
// another one, or one at or below the last bind or checkpoint (whose id
// is not kept), ends the session with ErrDiverged, and the next bind
// checks the position against the log and rewinds it. A consumer goes
// back when its stream lost entries: nats-server moves it to the
// stream's last sequence (reconcileStateWithStream), and the entries it
// then delivers may be new ones at sequences this node applied in the
// lost history; skipped as redeliveries, they were never applied here
// (adds acknowledged after a power cut of every node missing from a
// node's files, in TestClusterPowerCutEverysec).
func (f *follower) redelivered(seq uint64, id string) error {
	if i := seq - f.sinceBase - 1; seq > f.sinceBase && i < uint64(len(f.since)) && f.since[i] == id {
		f.l.redelivered.Add(1)
		return nil
	}
	return fmt.Errorf("%w: %s seq %d delivered again, as %q, at or below the applied %d (the consumer went back)",
		ErrDiverged, f.l.cfg.Layout.StreamName(f.stream), seq, id, f.applied.Load())
}

// stop counts a failed attempt to apply the message at seq (its Apply,
// or a bootstrap over a gap before it) and returns its error, logging
// it (Config.Logf) when it is the first at seq or says something new:
// the session ends and run tries seq again after retryPause.
func (f *follower) stop(ctx context.Context, seq uint64, err error) error {
	err = fmt.Errorf("%s seq %d: %w", f.l.cfg.Layout.StreamName(f.stream), seq, err)
	f.applyErrors.Add(1)
	f.fails++
	last, _ := f.lastErr.Load().(string)
	f.lastErr.Store(err.Error()) // before halted closes: Ack.Result reads it then
	prev := f.stopped.Swap(seq)
	if prev == 0 {
		f.mu.Lock()
		close(f.halted)
		f.mu.Unlock()
	}
	if ctx.Err() == nil && (prev != seq || last != err.Error()) {
		f.l.logf("replication: %v (stopped here: retried with a pause growing to %v until it applies)", err, ApplyRetryMax)
	}
	return err
}

// resume clears a stop once the message at seq applied.
func (f *follower) resume(seq uint64) {
	if f.stopped.Load() == 0 {
		return
	}
	f.l.logf("replication: %s seq %d applied after %d failed attempts: resumed", f.l.cfg.Layout.StreamName(f.stream), seq, f.fails)
	f.fails = 0
	f.lastErr.Store("")
	f.mu.Lock()
	f.halted = make(chan struct{})
	f.mu.Unlock()
	f.stopped.Store(0)
}

// halted returns a channel closed while this node's follower of stream
// is stopped (nil when it does not follow stream).
func (l *Log) halted(stream int) <-chan struct{} {
	f := l.follower(stream)
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.halted
}

// bootstrap copies the stream's data from a peer after a gap
// (applied+1 .. seq-1 are gone) and records the position it covers. A
// bootstrap that fails stops the follower at applied+1 (stop), as an
// Apply error does: this node cannot apply the stream until it copies
// the data. The records this process published that the copy covers
// were never applied here: their Execute calls fail with ErrSkipped.
func (f *follower) bootstrap(ctx context.Context, applied, seq uint64) error {
	covered, err := f.a.Bootstrap(ctx, f.stream)
	if err != nil {
		return f.stop(ctx, applied+1, fmt.Errorf("%w: %d then %d; bootstrap: %v", ErrGap, applied, seq, err))
	}
	if err := f.a.Sync(f.stream); err != nil {
		return err
	}
	if err := f.l.pos.set(f.stream, covered, ""); err != nil {
		return err
	}
	f.lastID = ""
	f.resume(applied + 1)
	f.l.skipCovered(f.stream, covered)
	f.advance(covered)
	f.l.bootstraps.Add(1)
	return errRebind
}

func (f *follower) advance(seq uint64) {
	f.applied.Store(seq)
	f.mu.Lock()
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

// checkpoint syncs, checks that the log holds the message applied last
// and the message of the newest mark, the checkpoint before (ErrDiverged,
// and nothing recorded, when it does not hold either: the follower went
// on in another history than the one it applied before), records the
// position with that message's id as a mark, then acknowledges every
// message up to m (AckAll; nil: none, the position was applied from the
// leader), so the consumer's ack floor is this node's durable position.
// So each mark was recorded while the log held the one before it.
func (f *follower) checkpoint(m *nats.Msg) error {
	if err := f.a.Sync(f.stream); err != nil {
		return err
	}
	moved, err := f.verifySince()
	if err != nil {
		return err
	}
	seq := f.applied.Load()
	if err := f.l.checkHeld(f.stream, seq, f.lastID); err != nil {
		return err
	}
	if prev, ok := f.l.pos.newest(f.stream); ok && prev.seq < seq {
		if err := f.l.checkHeld(f.stream, prev.seq, prev.id); err != nil {
			return err
		}
	}
	if err := f.l.pos.set(f.stream, seq, f.lastID); err != nil {
		return err
	}
	f.sinceBase, f.since = seq, f.since[:0]
	if m != nil {
		if err := m.AckSync(); err != nil {
			return err
		}
	}
	if moved {
		return errRebind // a consumer on the leader, which needs no check
	}
	return nil
}

// verifySince checks, when the consumer is not on the stream's leader
// now (placeConsumer), that the leader holds each message applied since
// the last bind or checkpoint at its sequence (ErrDiverged when it does
// not), one message get each, and returns moved: the session then binds
// a consumer on the leader. With the consumer on the leader it only asks
// who leads.
func (f *follower) verifySince() (moved bool, err error) {
	if f.server == "" || len(f.since) == 0 {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.l.cfg.PublishTimeout)
	leader, err := f.l.streamLeader(ctx, f.stream)
	cancel()
	if err != nil || leader == f.server {
		return false, err
	}
	for i, id := range f.since {
		if err := f.l.checkHeld(f.stream, f.sinceBase+uint64(i)+1, id); err != nil {
			if errors.Is(err, ErrDiverged) {
				f.rewindSince(err)
			}
			return false, err
		}
	}
	return true, nil
}

// rewindSince lowers the applied position to the last bind or checkpoint
// (sinceBase), after err found a message applied since then that the
// leader does not hold: the next bind goes on from there, checked
// against the log (resumeFrom), instead of from a position whose
// message matches while the ones below it do not. It counts and logs
// the rewind.
func (f *follower) rewindSince(err error) {
	from := f.applied.Load()
	f.applied.Store(f.sinceBase)
	f.lastID = f.markedID()
	f.since = f.since[:0]
	f.l.rewinds[f.stream].Add(1)
	f.l.logf("replication: %s: the consumer on %s delivered messages the stream's leader does not hold (%v): applied again from %d, not from %d",
		f.l.cfg.Layout.StreamName(f.stream), f.server, err, f.sinceBase+1, from)
}

// originNode strips the process epoch from an entry's origin.
func originNode(origin string) string {
	for i := len(origin) - 1; i >= 0; i-- {
		if origin[i] == '/' {
			return origin[:i]
		}
	}
	return origin
}
