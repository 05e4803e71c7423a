package replication

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// bind creates this node's durable pull consumer on the stream at the
// position + 1 and subscribes to it: the applied or recorded position,
// or lower when the log no longer holds the message there (resumeFrom). A consumer left from
// before (a restart, an apply error) is replaced: the messages it had
// delivered but not acknowledged would come back only after AckWait,
// behind newer ones, so it restarts from the position instead. The
// consumer has one replica: its state is rebuilt from the node's own
// recorded position at every bind, so replicating each delivery through
// Raft (as an R3 consumer does) would buy nothing; if the server holding
// it goes, the fetch fails and the next bind makes a new one.
func (f *follower) bind(ctx context.Context) error {
	if f.sub != nil {
		return nil
	}
	name, durable := f.l.cfg.Layout.StreamName(f.stream), f.l.durable()
	applied, err := f.l.resumeFrom(ctx, f.stream, f.applied.Load(), f.lastID)
	if err != nil {
		return err
	}
	rewound := applied < f.applied.Load()
	f.applied.Store(applied)
	f.sinceBase, f.since = applied, f.since[:0]
	if rewound {
		f.lastID = f.markedID()
	}
	err = f.l.js.DeleteConsumer(name, durable, nats.Context(ctx))
	if err != nil && !errors.Is(err, nats.ErrConsumerNotFound) {
		return fmt.Errorf("replication: %s: replace consumer: %w", name, err)
	}
	cfg := &nats.ConsumerConfig{Durable: durable, FilterSubject: f.l.cfg.Layout.Subject(f.stream), DeliverPolicy: nats.DeliverAllPolicy,
		AckPolicy: nats.AckAllPolicy, AckWait: f.l.cfg.AckWait, MaxAckPending: -1, Replicas: 1}
	if applied > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = nats.DeliverByStartSequencePolicy, applied+1
	}
	if _, err = f.l.js.AddConsumer(name, cfg, nats.Context(ctx)); err != nil {
		return fmt.Errorf("replication: %s: add consumer: %w", name, err)
	}
	f.sub, err = f.l.js.PullSubscribe(cfg.FilterSubject, durable, nats.Bind(name, durable))
	if err != nil {
		return fmt.Errorf("replication: %s: subscribe: %w", name, err)
	}
	return f.checkFirst(ctx, applied)
}

// checkFirst finds a gap at start: the stream's first sequence past the
// position + 1 (a new node, or one behind the retention window) makes
// the follower bootstrap before it applies anything.
func (f *follower) checkFirst(ctx context.Context, applied uint64) error {
	si, err := f.l.js.StreamInfo(f.l.cfg.Layout.StreamName(f.stream), nats.Context(ctx))
	if err != nil {
		return fmt.Errorf("replication: %s: %w", f.l.cfg.Layout.StreamName(f.stream), err)
	}
	if si.State.FirstSeq > applied+1 && si.State.Msgs > 0 || si.State.Msgs == 0 && si.State.LastSeq > applied {
		return f.bootstrap(ctx, applied, si.State.FirstSeq)
	}
	return nil
}
