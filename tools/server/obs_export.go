package server

import "time"

// Stats is a snapshot of what the server counts, for a metrics exporter
// (package tools/metrics); INFO reports the same numbers.
type Stats struct {
	// Commands has one entry per command called, rejected or failed.
	Commands []CommandStats
	// Errors counts error replies by their first word (ERR, NOAUTH...).
	Errors map[string]int64
	// ErrorReplies counts every error reply; ProtocolErrors those of
	// requests the parser refused.
	ErrorReplies, ProtocolErrors int64
	// CommandsProcessed counts every command received.
	CommandsProcessed int64
	// ConnectionsReceived and RejectedConnections count connections since
	// start; ConnectedClients is the number connected now.
	ConnectionsReceived, RejectedConnections int64
	ConnectedClients                         int
	// FixedFilters and Sets count the keys of the data directory by kind.
	FixedFilters, Sets int64
	// OpenFilters, OpenLayers, OpenItems (their BF.CARD sum) and
	// MappedBytes describe the filters open now; ResidentBytes is how
	// much of their files the page cache holds (at most memStatsTTL old;
	// -1 when the system cannot tell).
	OpenFilters, OpenLayers, OpenItems, MappedBytes, ResidentBytes int64
	// KeysAdded counts the keys BF.ADD, BF.MADD and BF.INSERT answered
	// as new.
	KeysAdded int64
	// HealthSampledKeys counts the open keys with a cached health sample
	// (MBF.HEALTH's; each Stats call samples at most 8 more);
	// KeysOverCapacity those of them with a layer over its capacity.
	// FPRRatioCounts[i] of them have an estimated false-positive rate
	// over their target p of at most FPRRatioBounds[i] (cumulative);
	// FPRRatioKeys counts those with a p, FPRRatioSum sums their ratios.
	HealthSampledKeys, KeysOverCapacity int64
	FPRRatioBounds                      []float64
	FPRRatioCounts                      []uint64
	FPRRatioKeys                        uint64
	FPRRatioSum                         float64
	// Replica is true on a node that pulls a primary's filters (not on
	// the log, whose figures are Streams).
	// ReplicationLag is then the age, in seconds, of the data of its
	// latest successful pull (the time since that pull started), -1
	// before the first; Pulls and PullErrors count its pulls.
	Replica           bool
	ReplicationLag    float64
	Pulls, PullErrors int64
	// Failover is true on a node with lease failover. Its keeper's
	// renewal tries are then counted in LeaseRenewalCount, their time in
	// LeaseRenewalSumSeconds and as a cumulative histogram whose upper
	// bounds are LeaseRenewalBoundsSeconds (LeaseRenewalCounts[i] tries
	// took at most bound i); LeaseRenewalFailures counts the tries that
	// failed, LeaseStepDowns the leases given up (logged with the cause).
	Failover                             bool
	LeaseRenewalBoundsSeconds            []float64
	LeaseRenewalCounts                   []uint64
	LeaseRenewalCount                    uint64
	LeaseRenewalSumSeconds               float64
	LeaseRenewalFailures, LeaseStepDowns int64
	// LeaseHolders is, with failover, each shard's (config primary's
	// id) lease holder as this node last saw it ("" none); LeaseNodes
	// are the config's node ids.
	LeaseHolders map[string]string
	LeaseNodes   []string
	// Streams are this node's figures of the streams of the log it
	// follows (empty without the log, or before it opens).
	Streams []StreamStats
	// FileSystems are the data directory's and the log store's.
	FileSystems []FSStats
	// Syncs and SyncErrors count the Syncs of the open filters that
	// succeeded and failed (appendfsync, SAVE, BGSAVE, WAITAOF 1);
	// SyncFailing is true while the last one failed (writes then answer
	// MISCONF); LastSaveUnix is LASTSAVE, in seconds.
	Syncs, SyncErrors    int64
	SyncFailing          bool
	LastSaveUnix         float64
	UserCPU, SystemCPU   float64 // CPU seconds of the process
	UptimeSeconds        float64
	ResidentSetBytes     int64 // of the process; -1 when unknown
	LatencyBoundsSeconds []float64
}

// CommandStats is one command's counts (INFO commandstats): calls run,
// calls rejected before running, calls that answered an error, their
// time, and their latencies as a cumulative histogram whose upper
// bounds are Stats.LatencyBoundsSeconds (LatencyCounts[i] calls took
// at most bound i; LatencyCount is every call tracked).
type CommandStats struct {
	Name                    string
	Calls, Rejected, Failed int64
	Seconds                 float64
	LatencyCounts           []uint64
	LatencyCount            uint64
	LatencySumSeconds       float64
}

// latencyBoundsNs are the histogram bounds Stats reports: 2^10 ns
// (about 1 µs) to 2^30 ns (about 1 s), by powers of two, as LATENCY
// HISTOGRAM's.
var latencyBoundsNs = func() []int64 {
	var b []int64
	for p := 10; p <= 30; p++ {
		b = append(b, int64(1)<<p)
	}
	return b
}()

// Stats returns a snapshot of the server's counts.
func (s *Server) Stats() Stats {
	st := Stats{Errors: s.obs.errs.Counts(), ErrorReplies: s.obs.errs.Total(), ProtocolErrors: s.protoErrs.Load(),
		CommandsProcessed: s.commands.Load(), ConnectionsReceived: s.accepted.Load(), RejectedConnections: s.rejected.Load(),
		KeysAdded: s.obs.added.Load(), UptimeSeconds: time.Since(s.start).Seconds(), ResidentSetBytes: residentSetBytes(),
		ReplicationLag: -1}
	sy := s.obs.syncs
	st.Syncs, st.SyncErrors, st.SyncFailing = sy.saves.Load(), sy.errors.Load(), sy.failed.Load()
	st.LastSaveUnix = float64(sy.lastSave(s.start).UnixNano()) / 1e9
	s.mu.Lock()
	st.ConnectedClients = len(s.clients)
	s.mu.Unlock()
	d, m := s.dataStats(), s.memStats()
	st.FixedFilters, st.Sets = d.fixed, d.sets
	st.OpenFilters, st.OpenLayers, st.OpenItems, st.MappedBytes, st.ResidentBytes = m.open, m.layers, m.items, m.mapped, m.resident
	h := healthSummaryOf(s.store, time.Now())
	st.HealthSampledKeys, st.KeysOverCapacity = h.sampled, h.overCapacity
	st.FPRRatioBounds, st.FPRRatioCounts, st.FPRRatioKeys, st.FPRRatioSum = fprRatioBounds, h.ratioCounts, h.ratioKeys, h.ratioSum
	st.UserCPU, st.SystemCPU = cpuSeconds()
	for _, b := range latencyBoundsNs {
		st.LatencyBoundsSeconds = append(st.LatencyBoundsSeconds, float64(b)/1e9)
	}
	if cs := s.cluster.Load(); cs != nil && cs.me.Primary != nil && s.repl == nil {
		p := s.puller.status()
		st.Replica, st.Pulls, st.PullErrors = true, p.pulls, p.errors
		if !p.lastStart.IsZero() {
			st.ReplicationLag = time.Since(p.lastStart).Seconds()
		}
	}
	if f := s.failover; f != nil {
		snap := f.renewals.Snapshot()
		st.Failover, st.LeaseRenewalCounts, st.LeaseRenewalCount = true, snap.Below(leaseBoundsNs), snap.Total
		st.LeaseRenewalSumSeconds = float64(f.renewNanos.Load()) / 1e9
		st.LeaseRenewalFailures, st.LeaseStepDowns = f.renewFailures.Load(), f.stepDowns.Load()
		st.LeaseHolders = f.leaseHolders()
		for _, n := range s.cluster.Load().config.Nodes {
			st.LeaseNodes = append(st.LeaseNodes, n.ID)
		}
		for _, b := range leaseBoundsNs {
			st.LeaseRenewalBoundsSeconds = append(st.LeaseRenewalBoundsSeconds, float64(b)/1e9)
		}
	}
	s.logStats(&st)
	st.FileSystems = s.fsStats()
	for _, cmd := range s.cmds.list {
		if cs, ok := s.commandStats(cmd); ok {
			st.Commands = append(st.Commands, cs)
		}
	}
	return st
}

// commandStats returns cmd's counts, false when it has none.
func (s *Server) commandStats(cmd *command) (CommandStats, bool) {
	c := &s.obs.cmds[cmd.id]
	cs := CommandStats{Name: cmd.name, Calls: c.Calls.Load(), Rejected: c.Rejected.Load(), Failed: c.Failed.Load(),
		Seconds: float64(c.Nanos.Load()) / 1e9}
	if cs.Calls == 0 && cs.Rejected == 0 && cs.Failed == 0 {
		return cs, false
	}
	snap := c.Hist.Snapshot()
	cs.LatencyCounts, cs.LatencyCount = snap.Below(latencyBoundsNs), snap.Total
	cs.LatencySumSeconds = cs.Seconds
	return cs, true
}
