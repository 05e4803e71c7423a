package server

import (
	"context"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/lease"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// A shard held here is served only while its lease is valid
// (lease.Validity: TTL - TTL/4 after the start of its last successful
// renewal, on the keeper's clock, CLOCK_BOOTTIME), whatever the keeper
// has reported: a process stopped past the TTL (a frozen container, a GC
// or swap storm, SIGSTOP) answers CLUSTERDOWN for the shard's keys when
// it resumes, before the keeper's next round learns the new holder
// (then MOVED), and never answers from its filters meanwhile. The check
// is one clock read and compare per keyed command; with
// Failover.ConfirmReads a read also waits for a renewal (confirmRead).

// leasedRange is a range of slots this node serves under the lease name
// while v holds.
type leasedRange struct {
	r    cluster.Range
	name string
	v    *lease.Validity
}

// leaseClock is a connection's reading of the lease clock: taken once a
// pipeline, by its first command that needs it (on Linux a system call,
// CLOCK_BOOTTIME), and carried to its later commands on the observer's
// clock (Go's monotonic clock, vDSO), so each command reads a clock
// once. A system suspended within a pipeline goes unseen by its later
// commands (the monotonic clock stops then); a stopped process does not.
type leaseClock struct {
	at   time.Time // the lease clock's reading
	mono int64     // the observer's time (obs.now) at that reading
	read bool      // at and mono are this pipeline's
}

// leaseNow returns the lease clock's time now for c.
func (s *Server) leaseNow(c *client) time.Time {
	now := s.obs.now()
	if !c.lease.read {
		c.lease = leaseClock{at: s.failover.cfg.Clock.Now(), mono: now, read: true}
	}
	return c.lease.at.Add(time.Duration(now - c.lease.mono))
}

// leaseLapsed returns msgClusterDown when slot is in a shard served here
// whose lease is no longer valid, else "".
func (s *Server) leaseLapsed(c *client, cs *clusterState, slot int) string {
	if l := cs.leaseOf(slot); l != nil && !l.v.ValidAt(s.leaseNow(c)) {
		return msgClusterDown
	}
	return ""
}

// leaseOf returns the leased range holding slot, or nil.
func (cs *clusterState) leaseOf(slot int) *leasedRange {
	for i := range cs.leased {
		if l := &cs.leased[i]; l.r.Start <= slot && slot <= l.r.End {
			return l
		}
	}
	return nil
}

// confirmRead, with Failover.ConfirmReads, has a read of a slot served
// here wait for a renewal of its lease that began after it arrived, and
// returns msgClusterDown when none succeeds within the TTL; else "".
func (s *Server) confirmRead(cmd *command, slot int) string {
	f := s.failover
	if f == nil || !f.cfg.ConfirmReads || !cmd.readOnly() {
		return ""
	}
	l := s.cluster.Load().leaseOf(slot)
	if l == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.TTL)
	defer cancel()
	if f.keeper.Confirm(ctx, l.name) != nil {
		return msgClusterDown
	}
	return ""
}
