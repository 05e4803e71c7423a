package server

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
