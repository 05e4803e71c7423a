package server

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/lease"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// Failover with no person in the loop: each shard of the cluster config
// (a primary's slots) has a lease in a NATS key-value bucket whose
// entries expire (package lease). The lease's holder owns the shard; a
// primary that stops renewing loses it after at most one TTL, and one
// of its replicas then takes it, drains the shard's log and serves it.
// CLUSTER SLOTS, SHARDS, NODES and MOVED show the holders at once.

// Failover configures lease-based failover (Config.Failover).
type Failover struct {
	// KV is the lease bucket (lease.OpenBucket), whose entries expire
	// TTL after their last write.
	KV lease.KV
	// TTL is the bucket's TTL: a shard whose owner stops renewing moves
	// after at most TTL + TTL/4, plus Drain's time.
	TTL time.Duration
	// Drain waits until this node has applied the log of the given
	// slots up to the log's last sequence at the call (the replication
	// log's DrainToLast for each of their streams); a node serves a
	// shard it takes only once Drain returned nil. nil: nothing to
	// drain (no log).
	Drain func(ctx context.Context, slots []cluster.Range) error
	// Clock times the renewals and the lease's validity on each
	// command (lease.Validity). Default lease.RealClock.
	Clock lease.Clock
	// Applying reports whether this node applies the log of the given
	// slots now (none of their streams stopped on an apply error): while
	// it does not, the node neither takes nor keeps their shard's lease
	// (lease.Key.Eligible), so a healthy node serves them. nil: always.
	Applying func(slots []cluster.Range) bool
	// ConfirmReads makes a read of a shard held here wait for a renewal
	// of its lease that began after the read arrived (Keeper.Confirm;
	// serve's --lease-read confirm): a read then answers only what a
	// holder NATS has just confirmed sees, even if this node's clock
	// stopped with it. Default false: a read checks the lease's validity
	// on the clock, as a write does.
	ConfirmReads bool
}

// leaseKey is the lease of the shard of config primary id.
func leaseKey(id string) string { return "slots." + id }

// failover is a node's running lease keeper and what it has drained.
type failover struct {
	cfg    Failover
	keeper *lease.Keeper
	done   chan struct{}

	shards map[string]bool // the config primaries whose leases keeper follows

	// The keeper's renewal tries (their time on its clock, ns; the sum
	// and the longest), those that failed, and the leases given up.
	renewals                 obs.Hist
	renewNanos, renewMax     atomic.Int64
	renewFailures, stepDowns atomic.Int64

	mu      sync.Mutex
	owners  map[string]string // config primary id -> holder id ("" none)
	drained map[string]bool   // shards held here whose log is applied
	stop    context.CancelFunc
	running bool // the keeper runs (runFailover)
	stopped bool // stopFailover was called
}

// startFailover starts the lease keeper of s's node over the shards of
// the config file cs was loaded from.
func (s *Server) startFailover(cs *clusterState) error {
	f := &failover{cfg: *s.cfg.Failover, done: make(chan struct{}), shards: map[string]bool{},
		owners: map[string]string{}, drained: map[string]bool{}}
	if f.cfg.Clock == nil {
		f.cfg.Clock = lease.RealClock{}
	}
	var keys []lease.Key
	for _, p := range cs.config.Shards() {
		f.shards[p.ID] = true
		keys = append(keys, lease.Key{Name: leaseKey(p.ID), Candidate: s.mayTake(cs, p), Preferred: p == cs.me,
			Eligible: f.eligible(p.Slots)})
	}
	k, err := lease.NewKeeper(lease.Config{KV: f.cfg.KV, Node: cs.me.ID, TTL: f.cfg.TTL, Keys: keys,
		Clock: f.cfg.Clock, OnChange: s.leasesChanged, OnRenew: s.leaseRenewed, OnStepDown: s.leaseSteppedDown})
	if err != nil {
		return err
	}
	f.keeper = k
	s.failover = f
	return nil
}

// eligible is the lease.Key.Eligible of a shard of slots: Applying on
// them, nil without it.
func (f *failover) eligible(slots []cluster.Range) func() bool {
	if f.cfg.Applying == nil {
		return nil
	}
	return func() bool { return f.cfg.Applying(slots) }
}

// mayTake reports whether this node may take the shard of config
// primary p: its own, its primary's, and with the replication log those
// of the primaries whose log it applies (cluster.Map.Successors).
func (s *Server) mayTake(cs *clusterState, p *cluster.Node) bool {
	return p == cs.me || cs.me.Primary == p ||
		s.cfg.Replication != "" && slices.Contains(cs.config.Successors(p, logFollowers), cs.me)
}

// runFailover starts the keeper once the cluster state is published
// (with the replication log, once the log is open), unless the server
// is stopping.
func (s *Server) runFailover() {
	f := s.failover
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped || f.running {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	f.stop, f.running = stop, true
	go func() {
		defer close(f.done)
		_ = f.keeper.Run(ctx)
	}()
}

// stopFailover stops the keeper, releasing the leases held here so the
// others take them without waiting for their TTL.
func (s *Server) stopFailover() {
	f := s.failover
	if f == nil {
		return
	}
	f.mu.Lock()
	f.stopped = true
	running := f.running
	f.mu.Unlock()
	if running {
		f.stop()
		<-f.done
	}
}

// leasesChanged is the keeper's OnChange: it records the holders, drains
// the shards this node has just taken, and publishes the new routing.
func (s *Server) leasesChanged(v lease.View) {
	f := s.failover
	f.mu.Lock()
	for _, p := range s.cluster.Load().config.Shards() {
		if !f.shards[p.ID] {
			continue
		}
		id, holder := p.ID, v[leaseKey(p.ID)]
		if holder != f.owners[id] && f.drained[id] {
			delete(f.drained, id)
		}
		if holder != f.owners[id] {
			s.cfg.Log.Printf("failover: the lease of %s's slots is held by %q (was %q)", id, holder, f.owners[id])
		}
		if holder == s.cfg.NodeID && f.owners[id] != holder {
			go s.drainShard(id, p.Slots)
		}
		f.owners[id] = holder
	}
	f.mu.Unlock()
	s.republish()
}

// drainShard applies the log of shard id's slots up to its end, retrying
// each Tick while this node holds the shard, then lets it serve them.
func (s *Server) drainShard(id string, slots []cluster.Range) {
	f := s.failover
	for f.holds(id) {
		err := error(nil)
		if f.cfg.Drain != nil {
			ctx, cancel := context.WithTimeout(context.Background(), f.cfg.TTL)
			err = f.cfg.Drain(ctx, slots)
			cancel()
		}
		if err == nil {
			f.mu.Lock()
			f.drained[id] = f.owners[id] == s.cfg.NodeID
			f.mu.Unlock()
			s.republish()
			s.cfg.Log.Printf("failover: %s's slots served here (their log is applied)", id)
			return
		}
		s.cfg.Log.Printf("failover: drain of the log of %s's slots: %v (retrying)", id, err)
		time.Sleep(f.keeper.Tick())
	}
}

// holds reports whether this node holds shard id's lease now.
func (f *failover) holds(id string) bool { return f.keeper.Holds(leaseKey(id)) }

// republish recomputes the cluster state from the config and the
// current holders, closing the files of slots gained or lost.
func (s *Server) republish() {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	old := s.cluster.Load()
	cs := s.withLeases(&clusterState{m: old.config, config: old.config, paused: old.paused})
	s.gate.Lock()
	s.cluster.Store(cs)
	s.dropMoved(old, cs)
	s.gate.Unlock()
}

// withLeases returns cs (read from the config file) with the lease
// holders as owners: a shard this node is shown owning but does not
// hold answers CLUSTERDOWN, one held but not drained yet TRYAGAIN, one
// served is served while its lease is valid (cs.leased).
func (s *Server) withLeases(cs *clusterState) *clusterState {
	f := s.failover
	if f == nil {
		return cs
	}
	f.mu.Lock()
	owners, drained := maps.Clone(f.owners), maps.Clone(f.drained)
	f.mu.Unlock()
	cs.m = cs.config.WithOwners(owners)
	cs.me, _ = cs.m.Node(s.cfg.NodeID)
	cs.blocked, cs.leased = nil, nil
	for _, p := range cs.config.Shards() {
		if !f.shards[p.ID] || len(p.Slots) == 0 || cs.m.Owner(p.Slots[0].Start) != cs.me {
			continue
		}
		msg := ""
		switch {
		case !f.holds(p.ID):
			msg = msgClusterDown
		case !drained[p.ID]:
			msg = msgDraining
		}
		for _, r := range p.Slots {
			if msg != "" {
				cs.blocked = append(cs.blocked, blockedRange{r, msg})
			} else {
				cs.leased = append(cs.leased, leasedRange{r, leaseKey(p.ID), f.keeper.Validity(leaseKey(p.ID))})
			}
		}
	}
	return cs
}

// blockedRange is a range of slots this node owns but may not serve now,
// and the error it answers for them.
type blockedRange struct {
	r   cluster.Range
	msg string
}

// Errors of a shard this node owns but may not serve: its lease lost
// (cut off from NATS; Redis's reply of a node in a failed cluster), or
// taken and its log not yet applied.
const (
	msgClusterDown = "CLUSTERDOWN The cluster is down"
	msgDraining    = "TRYAGAIN Multiple keys request during rehashing of slot"
)
