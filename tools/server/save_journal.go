package server

import (
	"errors"

	"github.com/tidwall/redcon"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/journal"
)

// The journal of appendfsync always (package journal): each write
// command a client ran is appended, as the replication log's record of
// it, once it ran; the group commit of save_appendfsync.go then writes
// and fsyncs the journal rather than msyncing every filter, so an add
// costs a few dozen bytes of sequential write, and a checkpoint (a Sync
// of the filters, then the journal's files removed) runs once the
// journal holds checkpointBytes, when appendfsync leaves always, after a
// failed commit, and at shutdown. At start the records of the files a
// crash left are applied in order, as the log's records are (idempotent
// adds; commands in their order), then checkpointed. With the
// replication log the log keeps the writes and there is no journal.
// Local processes writing the files directly keep their own Sync: the
// journal holds only what the server ran.

// checkpointBytes is the journal size that starts a checkpoint: Redis's
// auto-aof-rewrite-min-size default, 64 MiB (about two million BF.ADDs,
// applied again in a few seconds at start).
const checkpointBytes = 64 << 20

// openJournal opens the journal of the data directory, applies the
// records an earlier run left and checkpoints them. Errors: the
// journal's, a record this node cannot apply (a full disk), the
// checkpoint's: the server does not start on writes it cannot keep.
func (s *Server) openJournal() error {
	j, old, err := journal.Open(s.cfg.Dir)
	if err != nil {
		return err
	}
	s.journal = j
	if len(old) == 0 {
		return nil
	}
	lc := s.applyingClient()
	for _, path := range old {
		n, torn, err := journal.Read(path, func(rec replication.Record) error {
			_, err := applyNext(lc, []replication.Record{rec}, nil)
			return err
		})
		if err != nil {
			return err
		}
		s.cfg.Log.Printf("journal: applied %d records of %s%s", n, path, tornNote(torn))
	}
	return s.checkpoint()
}

// tornNote is the log's note of a file whose last frame was cut short.
func tornNote(torn bool) string {
	if torn {
		return " (its last frame was cut short by a crash during its write, never acknowledged)"
	}
	return ""
}

// closeJournal checkpoints at shutdown, once no client runs, and closes
// the journal; on an error the files stay for the next start.
func (s *Server) closeJournal() error {
	if s.journal == nil {
		return nil
	}
	err := s.checkpoint()
	return errors.Join(err, s.journal.Close())
}

// journaling reports whether writes go to the journal: appendfsync
// always, without the replication log.
func (s *Server) journaling() bool {
	return s.journal != nil && s.fsync.get() == fsyncAlways
}

// runLocal runs cmd for c on this node's store and, while journaling,
// appends the record of a write to the journal once it ran: adds (BF.ADD,
// BF.MADD, which commute) share journalOrder, every other write holds it
// alone, so a DEL and an add of its key are journaled in the order they
// took effect. The journal holds what the log would (logged: writes
// with keys; FLUSHALL's DELs, run through here, rather than FLUSHALL).
// A record being applied is not journaled (the log or the journal has
// it).
func (s *Server) runLocal(c *client, cmd *command, args [][]byte) {
	if !cmd.logged() || c.applying || !s.journaling() {
		cmd.run(c, args)
		return
	}
	if cmd.name == "bf.add" || cmd.name == "bf.madd" {
		s.journalOrder.RLock()
		defer s.journalOrder.RUnlock()
	} else {
		s.journalOrder.Lock()
		defer s.journalOrder.Unlock()
	}
	cmd.run(c, args)
	s.journal.Append(s.recordOf(cmd, args))
}

// journalAdds runs add, a batch of pipelined BF.ADDs of one key that c
// sent (bf_batch.go), and while journaling appends them as one record,
// as runLocal does.
func (s *Server) journalAdds(c *client, cmds []redcon.Command, add func()) {
	if c.applying || !s.journaling() {
		add()
		return
	}
	s.journalOrder.RLock()
	defer s.journalOrder.RUnlock()
	add()
	fields := make([][]byte, 0, 1+len(cmds))
	fields = append(fields, cmds[0].Args[1])
	for _, cmd := range cmds {
		fields = append(fields, cmd.Args[2])
	}
	s.journal.Append(replication.Record{Op: replication.OpAdd, Fields: copyArgs(fields)})
}

// persistRound makes the writes that ran before it durable, for
// fsyncLoop: a journal commit while journaling, unless a checkpoint is
// due (the journal is full, the last save failed, or appendfsync left
// always with files still there); a Sync of the filters otherwise.
func (s *Server) persistRound() error {
	if s.journaling() && !s.obs.syncs.failed.Load() && s.journal.Size() < checkpointBytes {
		return s.persist("journal commit", s.journal.Commit)
	}
	return s.checkpoint()
}

// checkpoint syncs the open filters and removes the journal's files the
// Sync covers (a Sync alone without a journal).
func (s *Server) checkpoint() error {
	if s.journal == nil {
		return s.syncFilters()
	}
	return s.persist("checkpoint (a Sync of the open filters)", func() error {
		return s.journal.Checkpoint(s.store.SyncAll)
	})
}
