package server

import (
	"sync/atomic"
	"time"
)

// syncStat is what INFO persistence reports of the Syncs of the open
// filters (msync of every mapping: WAITAOF 1, a replica applying the
// replication log), in Redis's save fields: a Sync stands for a save.
// As after Redis's failed save, a failed Sync leaves the time of the
// last good one and the changes counted since it.
type syncStat struct {
	running atomic.Int32 // Syncs in progress
	started atomic.Int64 // Unix ns the latest Sync started
	saves   atomic.Int64 // Syncs completed without error
	lastEnd atomic.Int64 // Unix ns the last good Sync ended; 0 before one
	lastDur atomic.Int64 // ns the last Sync took, good or not; -1 before one
	failed  atomic.Bool  // the last Sync failed
	errors  atomic.Int64 // Syncs that failed
	addedAt atomic.Int64 // keys added (observer.added) when the last good Sync started
}

func newSyncStat() *syncStat {
	st := &syncStat{}
	st.lastDur.Store(-1)
	return st
}

// syncFilters msyncs every open filter and records the Sync.
func (s *Server) syncFilters() error {
	return s.persist("Sync of the open filters", s.store.SyncAll)
}

// persist runs sync, what makes the writes before it durable (a Sync of
// the filters, a journal commit or checkpoint: named what in the log),
// and records it as a save: INFO persistence, MISCONF after a failure,
// a log line when it fails and when it succeeds again.
func (s *Server) persist(what string, sync func() error) error {
	st := s.obs.syncs
	added, start := s.obs.added.Load(), time.Now()
	st.running.Add(1)
	st.started.Store(start.UnixNano())
	err := sync()
	was := st.failed.Load()
	st.done(start, time.Now(), added, err)
	st.running.Add(-1)
	switch {
	case err != nil:
		s.cfg.Log.Printf("%s failed: %v; writes answer MISCONF until a Sync succeeds", what, err)
	case was:
		s.cfg.Log.Printf("%s succeeded after a failure; writes are answered again", what)
	}
	return err
}

// done records a Sync that ran from start to end, when added keys had
// been added, and ended with err.
func (st *syncStat) done(start, end time.Time, added int64, err error) {
	st.lastDur.Store(int64(end.Sub(start)))
	st.failed.Store(err != nil)
	if err != nil {
		st.errors.Add(1)
		return
	}
	st.addedAt.Store(added)
	st.lastEnd.Store(end.UnixNano())
	st.saves.Add(1)
}

// info is the INFO persistence section, redis-server 7.0's fields in
// its order: the Syncs in the rdb_ fields, the server's start standing
// for the last save before a first Sync, added the keys added so far;
// the fork, load, AOF and module fields as Redis gives them without a
// fork, a dump file or an AOF (docs/operations.md).
func (st *syncStat) info(startup time.Time, added int64, now time.Time) [][2]string {
	last := st.lastSave(startup).Unix()
	running, current := "0", int64(-1)
	if st.running.Load() > 0 {
		running, current = "1", int64(now.Sub(time.Unix(0, st.started.Load()))/time.Second)
	}
	took := st.lastDur.Load()
	if took > 0 {
		took /= int64(time.Second)
	}
	status := "ok"
	if st.failed.Load() {
		status = "err"
	}
	return [][2]string{
		{"loading", "0"}, {"async_loading", "0"}, {"current_cow_peak", "0"}, {"current_cow_size", "0"},
		{"current_cow_size_age", "0"}, {"current_fork_perc", "0.00"}, {"current_save_keys_processed", "0"},
		{"current_save_keys_total", "0"},
		{"rdb_changes_since_last_save", itoa(added - st.addedAt.Load())}, {"rdb_bgsave_in_progress", running},
		{"rdb_last_save_time", itoa(last)}, {"rdb_last_bgsave_status", status},
		{"rdb_last_bgsave_time_sec", itoa(took)}, {"rdb_current_bgsave_time_sec", itoa(current)},
		{"rdb_saves", itoa(st.saves.Load())}, {"rdb_last_cow_size", "0"},
		{"rdb_last_load_keys_expired", "0"}, {"rdb_last_load_keys_loaded", "0"},
		{"aof_enabled", "0"}, {"aof_rewrite_in_progress", "0"}, {"aof_rewrite_scheduled", "0"},
		{"aof_last_rewrite_time_sec", "-1"}, {"aof_current_rewrite_time_sec", "-1"},
		{"aof_last_bgrewrite_status", "ok"}, {"aof_rewrites", "0"}, {"aof_rewrites_consecutive_failures", "0"},
		{"aof_last_write_status", "ok"}, {"aof_last_cow_size", "0"},
		{"module_fork_in_progress", "0"}, {"module_fork_last_cow_size", "0"},
	}
}

// persistenceInfo is INFO persistence (syncStat.info, with
// appendfsync's AOF fields: aofInfo).
func (s *Server) persistenceInfo() [][2]string {
	return s.aofInfo(s.obs.syncs.info(s.start, s.obs.added.Load(), time.Now()))
}
