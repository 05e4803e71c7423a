package server

import (
	"fmt"
	"strings"
	"time"
)

// Readiness as Redis defines it: CLUSTER INFO's cluster_state is ok
// only when every slot is served, as far as this node knows. Without
// failover a slot is served when the config file gives it an owner;
// with failover, when the shard holding it has a holder in the lease
// bucket this node watches, and, for a shard this node owns, when it
// holds the lease, has drained the shard's log and its lease is valid
// now (the same checks as a keyed command's). Whether another node has
// drained a shard it just took is not in the bucket: it may answer
// TRYAGAIN for a moment, which clients retry. mmapbloom_serving
// (CLUSTER INFO; mbf_serving in INFO cluster) is 1 when this node
// serves every slot it owns now.

// readiness is what this node knows of the slots served now.
type readiness struct {
	ok      int  // slots served (cluster_slots_ok)
	serving bool // every slot this node owns is served here
}

// readiness returns the slots of cs served now and whether this node
// serves all of its own.
func (s *Server) readiness(cs *clusterState) readiness {
	r := readiness{ok: cs.m.Assigned(), serving: len(cs.blocked) == 0}
	f := s.failover
	if f == nil {
		return r
	}
	now := f.cfg.Clock.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range cs.config.Shards() {
		if !f.shards[p.ID] || len(p.Slots) == 0 {
			continue // no lease (a shard added by CLUSTER RELOAD): served as the file says
		}
		ready := f.owners[p.ID] != ""
		if cs.m.Owner(p.Slots[0].Start) == cs.me {
			ready = ready && f.drained[p.ID] && f.keeper.Validity(leaseKey(p.ID)).ValidAt(now)
			r.serving = r.serving && ready
		}
		if !ready {
			r.ok -= slotCount(p.Slots)
		}
	}
	return r
}

// clusterInfo is INFO's cluster section: cluster_enabled, and in
// cluster mode mbf_serving (CLUSTER INFO's mmapbloom_serving) and, with
// failover, the lease keeper's figures: renewal tries, those that
// failed, their latency (p50, p99, the longest; µs) and the leases
// given up (each logged with its cause).
func (s *Server) clusterInfo() [][2]string {
	cs := s.cluster.Load()
	out := [][2]string{{"cluster_enabled", boolDigit(cs != nil)}}
	if cs == nil {
		return out
	}
	out = append(out, [2]string{"mbf_serving", boolDigit(s.readiness(cs).serving)})
	if f := s.failover; f != nil {
		snap := f.renewals.Snapshot()
		out = append(out, [][2]string{
			{"mbf_lease_renewals", itoa(int64(snap.Total))},
			{"mbf_lease_renewal_failures", itoa(f.renewFailures.Load())},
			{"mbf_lease_renewal_usec", fmt.Sprintf("p50=%.3f,p99=%.3f,max=%.3f", float64(snap.Percentile(0.50))/1000,
				float64(snap.Percentile(0.99))/1000, float64(f.renewMax.Load())/1000)},
			{"mbf_lease_stepdowns", itoa(f.stepDowns.Load())},
		}...)
	}
	return out
}

// leaseRenewed is the keeper's OnRenew: it counts the try and its time.
func (s *Server) leaseRenewed(_ string, took time.Duration, err error) {
	f := s.failover
	f.renewals.Record(took.Nanoseconds(), 1)
	f.renewNanos.Add(took.Nanoseconds())
	for m := f.renewMax.Load(); took.Nanoseconds() > m && !f.renewMax.CompareAndSwap(m, took.Nanoseconds()); {
		m = f.renewMax.Load()
	}
	if err != nil {
		f.renewFailures.Add(1)
	}
}

// leaseSteppedDown is the keeper's OnStepDown: it logs the shard given
// up and why, and counts it.
func (s *Server) leaseSteppedDown(name string, cause error) {
	s.failover.stepDowns.Add(1)
	s.cfg.Log.Printf("failover: stepped down from %s's slots: %v", strings.TrimPrefix(name, leaseKey("")), cause)
}

// leaseBoundsNs are the upper bounds of Stats' lease renewal histogram:
// 2^20 ns (about 1 ms) to 2^34 ns (about 17 s), by powers of two (a
// renewal is a NATS round trip, and may take seconds on a loaded node).
var leaseBoundsNs = func() []int64 {
	var b []int64
	for p := 20; p <= 34; p++ {
		b = append(b, int64(1)<<p)
	}
	return b
}()
