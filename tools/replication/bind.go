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
	cfg := &nats.ConsumerConfig{Durable: durable, FilterSubject: f.l.cfg.Layout.Subject(f.stream), DeliverPolicy: nats.DeliverAllPolicy,
		AckPolicy: nats.AckAllPolicy, AckWait: f.l.cfg.AckWait, MaxAckPending: -1, Replicas: 1}
	if applied > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = nats.DeliverByStartSequencePolicy, applied+1
	}
	if err := f.placeConsumer(ctx, cfg); err != nil {
		return err
	}
	f.sub, err = f.l.js.PullSubscribe(cfg.FilterSubject, durable, nats.Bind(name, durable))
	if err != nil {
		return fmt.Errorf("replication: %s: subscribe: %w", name, err)
	}
	return f.checkFirst(ctx, applied)
}

// PlaceTries is how many times bind creates a follower's consumer
// anew while nats-server placed it on another server than the stream's
// leader (each try is placed at random among the stream's servers).
const PlaceTries = 6

// placeConsumer replaces this node's consumer with one of cfg, created
// again (up to PlaceTries times) until it is on the server leading the
// stream, and notes its server (follower.server). A consumer reads the
// replica of the server it is on, and after a power cut of every node
// a replica may hold, at some sequences, other messages than the
// leader: nats-server appends to a replica whose last sequence matches
// without comparing what it holds, so one that kept entries the leader
// lost goes on with them below the new ones (seen: a follower whose
// consumer read such a replica missed adds acknowledged after the
// restart, although the messages at its positions matched the
// leader's). A consumer on the leader reads the stream's history itself;
// checkpoint checks what one elsewhere delivered (verifySince).
func (f *follower) placeConsumer(ctx context.Context, cfg *nats.ConsumerConfig) error {
	name := f.l.cfg.Layout.StreamName(f.stream)
	for try := 1; ; try++ {
		err := f.l.js.DeleteConsumer(name, cfg.Durable, nats.Context(ctx))
		if err != nil && !errors.Is(err, nats.ErrConsumerNotFound) {
			return fmt.Errorf("replication: %s: replace consumer: %w", name, err)
		}
		ci, err := f.l.js.AddConsumer(name, cfg, nats.Context(ctx))
		if err != nil {
			return fmt.Errorf("replication: %s: add consumer: %w", name, err)
		}
		f.server = ""
		if ci.Cluster != nil {
			f.server = ci.Cluster.Leader
		}
		leader, err := f.l.streamLeader(ctx, f.stream)
		if err != nil || leader == f.server || try == PlaceTries {
			return err
		}
	}
}

// streamLeader is the name of the server leading stream i, "" when the
// stream is not clustered.
func (l *Log) streamLeader(ctx context.Context, i int) (string, error) {
	si, err := l.js.StreamInfo(l.cfg.Layout.StreamName(i), nats.Context(ctx))
	if err != nil {
		return "", fmt.Errorf("replication: %s: %w", l.cfg.Layout.StreamName(i), err)
	}
	if si.Cluster == nil {
		return "", nil
	}
	return si.Cluster.Leader, nil
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
