package server

import (
	"strings"
	"time"
)

// Writes refused after a failed Sync, as Redis refuses them after a
// failed save (its stop-writes-on-bgsave-error, on by default): once a
// Sync of the open filters (WAITAOF 1, a replica's apply of the
// replication log) has failed, the adds made since cannot be known to be
// on the disk, and the kernel may have dropped the pages it failed to
// write, so every write command (and PING, as Redis does, so that a
// monitor notices) answers MISCONF until a later Sync succeeds (the
// library then writes every page again) or CONFIG SET
// stop-writes-on-bgsave-error no. Reads go on.

// msgMisconf is redis-server 7.0's reply to a write after a failed save
// (shared.bgsaveerr in its server.c).
const msgMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. " +
	"Commands that may modify the data set are disabled, because this instance is configured to report errors " +
	"during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). " +
	"Please check the Redis logs for details about the RDB error."

// savesFailing reports whether writes are refused: the last Sync failed
// and stop-writes-on-bgsave-error is yes.
func (s *Server) savesFailing() bool {
	return s.obs.syncs.failed.Load() && s.conf.stopWritesOnSaveError.Load()
}

// saveRefusal is MISCONF for a write command or PING while savesFailing,
// else "".
func (s *Server) saveRefusal(cmd *command) string {
	if (cmd.write || cmd.name == "ping") && s.savesFailing() {
		return msgMisconf
	}
	return ""
}

// SAVE, BGSAVE and LASTSAVE: Redis's snapshot commands, here the Sync of
// the open filters that appendfsync and WAITAOF 1 run (syncFilters),
// with Redis 7.0's replies.

// saveCmd is SAVE: a Sync now; OK, or Redis's bare ERR when it failed
// (the log says why, and writes then answer MISCONF).
func saveCmd(c *client, _ [][]byte) {
	if err := c.s.syncFilters(); err != nil {
		c.w.WriteError("ERR")
		return
	}
	c.w.WriteString("OK")
}

// bgsave is BGSAVE [SCHEDULE]: the appendfsync goroutine is told to run
// a Sync (it joins the next group commit); answered at once.
func bgsave(c *client, args [][]byte) {
	if len(args) > 2 || len(args) == 2 && !strings.EqualFold(string(args[1]), "schedule") {
		c.w.WriteError("ERR syntax error")
		return
	}
	c.s.fsync.startSync()
	c.w.WriteString("Background saving started")
}

// lastsave is LASTSAVE: the Unix time in seconds of the last successful
// Sync, the server's start before one (INFO's rdb_last_save_time).
func lastsave(c *client, _ [][]byte) {
	c.w.WriteInt64(c.s.obs.syncs.lastSave(c.s.start).Unix())
}

// lastSave is when the last good Sync ended, startup before one.
func (st *syncStat) lastSave(startup time.Time) time.Time {
	if end := st.lastEnd.Load(); end != 0 {
		return time.Unix(0, end)
	}
	return startup
}
