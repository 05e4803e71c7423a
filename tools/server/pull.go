package server

import (
	"slices"
	"strconv"
)

// Replicas (a node whose config line is `ID HOST:PORT replica-of
// PRIMARY_ID`): it owns no slots, keeps a copy of its primary's keys by
// pulling them (pull_fetch.go), and serves reads of its primary's slots to
// connections that sent READONLY, as a Redis Cluster replica does. Every
// other keyed command, and every write, gets -MOVED to the slot's owner.

// route is check for cmd on a connection in read-only mode or not: a
// replica runs a read of a slot its primary owns when readonly is set,
// and redirects everything else to the slot's owner.
func (cs *clusterState) route(slot int, cmd *command, readonly bool) string {
	if cs.me.Primary == nil || slot < 0 {
		return cs.check(slot)
	}
	owner := cs.m.Owner(slot)
	switch {
	case owner == nil:
		return "CLUSTERDOWN Hash slot not served"
	case owner == cs.me.Primary && readonly && cmd.readOnly():
		return ""
	}
	return "MOVED " + strconv.Itoa(slot) + " " + owner.Endpoint()
}

// readOnly reports whether cmd only reads (its COMMAND flags hold
// "readonly"): what a replica may serve and a ReadOnly cluster client
// sends to replicas.
func (cmd *command) readOnly() bool { return slices.Contains(cmd.flags, "readonly") }

// replicationInfo is INFO's replication section: Redis's role, and on a
// replica its primary and the state of its pulls (pull_fetch.go); on
// the log, a node that does not own its shard's slots is role:slave of
// their owner with master_link_status of its log (jsRepl.linkStatus)
// and no pull fields. A primary
// reports its configured replicas as mbf_replicas (they pull; none is
// "connected" as a Redis replica is, so connected_slaves is 0); both
// report mbf_fold_buckets.
func (s *Server) replicationInfo() [][2]string {
	lines := s.pullInfo()
	if s.repl != nil {
		lines = append(lines, s.repl.info()...)
	}
	return lines
}

// pullInfo is INFO replication without the log's lines.
func (s *Server) pullInfo() [][2]string {
	cs := s.cluster.Load()
	if cs == nil || cs.me.Primary == nil {
		n := 0
		if cs != nil {
			n = len(cs.m.Replicas(cs.me))
		}
		return [][2]string{{"role", "master"}, {"connected_slaves", "0"}, {"mbf_replicas", strconv.Itoa(n)}, s.foldInfo()}
	}
	p := cs.me.Primary
	if s.repl != nil {
		return [][2]string{{"role", "slave"}, {"master_host", p.Host}, {"master_port", strconv.Itoa(p.Port)},
			{"master_link_status", s.repl.linkStatus()}, {"master_sync_in_progress", "0"}, {"slave_read_only", "1"}, s.foldInfo()}
	}
	st := s.puller.status()
	return [][2]string{
		{"role", "slave"}, {"master_host", p.Host}, {"master_port", strconv.Itoa(p.Port)},
		{"master_link_status", st.link()}, {"master_last_io_seconds_ago", st.ioAgo()},
		{"master_sync_in_progress", "0"}, {"slave_read_only", "1"},
		{"mbf_pull_interval_ms", strconv.FormatInt(s.cfg.PullInterval.Milliseconds(), 10)},
		{"mbf_pulls", strconv.FormatInt(st.pulls, 10)},
		{"mbf_pull_errors", strconv.FormatInt(st.errors, 10)},
		{"mbf_last_pull_start_unix_ms", unixMS(st.lastStart)},
		{"mbf_last_pull_end_unix_ms", unixMS(st.lastEnd)},
		{"mbf_last_pull_keys", strconv.Itoa(st.lastKeys)},
		{"mbf_last_pull_error", st.lastErr}, s.foldInfo(),
	}
}

// foldInfo is INFO replication's mbf_fold_buckets: the buckets of
// folded hash-tagged keys, 0 without folding (a replica refuses to pull
// from a primary that folds, pull_fetch.go).
func (s *Server) foldInfo() [2]string {
	n := 0
	if s.cfg.FoldHashtags {
		n = s.cfg.FoldBuckets
	}
	return [2]string{"mbf_fold_buckets", strconv.Itoa(n)}
}
