package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// A refusal by a limit of the flags is a record's result only where the
// record's origin runs with the same limits (classify): each node of a
// log publishes them (flagLimits) in the nodes' bucket
// (replication.Nodes: PREFIX_NODES, MBF_NODES by default), key "limits.NODE", and a node whose limits refuse another node's
// record reads that node's there and compares.

// peerLimitsAge is how long a node's limits read from the bucket are
// used before they are read again (a node restarted with other flags
// publishes them anew).
const peerLimitsAge = 10 * time.Second

// flagLimits is the text of the limits of s's flags that decide a
// record's result (store.Limiter): the size of a filter, the layers
// of a set, the loads of one client (the log's records load as one).
func (s *Server) flagLimits() string {
	l := s.cfg.Limits
	return fmt.Sprintf("max-filter-bytes=%d max-layers=%d max-client-loads=%d", l.MaxFilterBytes, l.MaxLayers, l.MaxClientLoads)
}

// peerLimits publishes this node's limits and reads other nodes'.
type peerLimits struct {
	r    *jsRepl
	mu   sync.Mutex
	kv   *replication.Nodes
	seen map[string]peerSeen // node id -> its limits as read
}

// peerSeen is a node's limits as read at a time.
type peerSeen struct {
	limits string
	at     time.Time
}

func newPeerLimits(r *jsRepl) *peerLimits { return &peerLimits{r: r, seen: map[string]peerSeen{}} }

// limitsKey is node's key in the nodes' bucket.
func limitsKey(node string) string { return "limits." + node }

// bucket returns the nodes' bucket, creating or binding it on first
// use; errLogNotReady before the log opens.
func (p *peerLimits) bucket(ctx context.Context) (*replication.Nodes, error) {
	log := p.r.log()
	if log == nil {
		return nil, errLogNotReady
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kv == nil {
		kv, err := replication.OpenNodes(ctx, log)
		if err != nil {
			return nil, err
		}
		p.kv = kv
	}
	return p.kv, nil
}

// publish writes this node's limits.
func (p *peerLimits) publish(ctx context.Context) error {
	kv, err := p.bucket(ctx)
	if err != nil {
		return err
	}
	if err := kv.Put(ctx, limitsKey(p.r.s.cfg.NodeID), []byte(p.r.s.flagLimits())); err != nil {
		return fmt.Errorf("replication: publish this node's limits: %w", err)
	}
	return nil
}

// publishLoop publishes this node's limits, retrying each second until
// it succeeds or ctx ends.
func (p *peerLimits) publishLoop(ctx context.Context) {
	for {
		err := p.publish(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		p.r.s.cfg.Log.Printf("%v (retrying)", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// of returns node's limits as it published them, read at most
// peerLimitsAge ago.
func (p *peerLimits) of(ctx context.Context, node string) (string, error) {
	p.mu.Lock()
	got, ok := p.seen[node]
	p.mu.Unlock()
	if ok && time.Since(got.at) < peerLimitsAge {
		return got.limits, nil
	}
	kv, err := p.bucket(ctx)
	if err != nil {
		return "", err
	}
	v, err := kv.Get(ctx, limitsKey(node))
	if err != nil {
		return "", fmt.Errorf("replication: limits of %s: %w", node, err)
	}
	p.mu.Lock()
	p.seen[node] = peerSeen{limits: string(v), at: time.Now()}
	p.mu.Unlock()
	return string(v), nil
}

// checkOrigin returns nil when origin (a node id) runs with the limits
// of this node's flags, else an error saying how they differ or why
// they could not be compared.
func (s *Server) checkOrigin(origin string, limitsOf func(ctx context.Context, node string) (string, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	theirs, err := limitsOf(ctx, origin)
	switch {
	case err != nil:
		return fmt.Errorf("the limits of %s, the record's origin, could not be compared with this node's: %w", origin, err)
	case theirs != s.flagLimits():
		return fmt.Errorf("%s, the record's origin, runs with %s; this node with %s", origin, theirs, s.flagLimits())
	}
	return nil
}
