package server

import (
	"bytes"
	"slices"
)

// Transactions. MULTI opens one: each command after it is checked
// (known, arity, authentication, cluster slot) and queued with +QUEUED, or
// answered with its error at once, which makes EXEC refuse the whole
// transaction with EXECABORT, as Redis does. EXEC runs the queued commands
// in order and answers an array of their replies; DISCARD drops them.
// redis-py's default pipeline (transaction=True) and go-redis's
// TxPipeline wrap their commands this way.
//
// Unlike Redis, a transaction is not isolated: each BF.* command is
// atomic on its own key, but another client's command may run between two
// queued ones. WATCH is not supported.

// tx is a client's open transaction.
type tx struct {
	on    bool // MULTI was called
	dirty bool // a command was refused while queueing: EXEC aborts
	// writes: a queued command writes, so that EXEC answers MISCONF
	// while writes are refused (saveRefusal), as Redis does.
	writes bool
	queue  [][][]byte // the queued commands, copied out of the read buffer
	// slot is the slot of the queued commands' keys (-1 none yet, or
	// standalone); cross: they lie in more than one slot, so that EXEC
	// answers CROSSSLOT and runs nothing, as Redis Cluster does.
	slot  int
	cross bool
}

// controlsTx reports whether cmd acts on the transaction itself rather
// than being queued.
func controlsTx(cmd *command) bool {
	return cmd != nil && (cmd.name == "multi" || cmd.name == "exec" || cmd.name == "discard" || cmd.name == "quit" || cmd.name == "reset")
}

// enqueue checks a command sent inside a transaction and queues it, or
// answers its error and marks the transaction to abort.
func (s *Server) enqueue(c *client, cmd *command, args [][]byte) {
	cmd, msg := s.prepare(c, cmd, args)
	if msg != "" {
		c.tx.dirty = true
		c.reject(cmd, msg)
		return
	}
	s.leave(cmd)
	if slices.Contains(cmd.flags, "no_multi") {
		c.tx.dirty = true
		c.reject(cmd, "ERR Command not allowed inside a transaction")
		return
	}
	c.tx.writes = c.tx.writes || cmd.write
	c.tx.noteSlot(c.s, cmd, args)
	queued := make([][]byte, len(args))
	for i, a := range args {
		queued[i] = bytes.Clone(a)
	}
	c.tx.queue = append(c.tx.queue, queued)
	c.w.WriteString("QUEUED")
}

// noteSlot records the slot of a queued command's keys in cluster mode
// (enqueue checked that they share one).
func (t *tx) noteSlot(s *Server, cmd *command, args [][]byte) {
	if s.cluster.Load() == nil {
		return
	}
	slot, _ := keysSlot(cmd, args)
	switch {
	case slot < 0:
	case t.slot < 0:
		t.slot = slot
	case t.slot != slot:
		t.cross = true
	}
}

func multi(c *client, _ [][]byte) {
	if c.tx.on {
		c.w.WriteError("ERR MULTI calls can not be nested")
		return
	}
	c.tx = tx{on: true, slot: -1}
	c.w.WriteString("OK")
}

func execTx(c *client, _ [][]byte) {
	t := c.tx
	c.tx = tx{}
	switch {
	case !t.on:
		c.w.WriteError("ERR EXEC without MULTI")
	case t.cross:
		c.w.WriteError(msgCrossSlot)
	case t.dirty:
		c.w.WriteError("EXECABORT Transaction discarded because of previous errors.")
	case t.writes && c.s.savesFailing():
		c.w.WriteError(msgMisconf)
	default:
		c.w.WriteArray(len(t.queue))
		for _, args := range t.queue {
			cmd := c.s.cmds.lookup(args[0])
			if msg := c.user.Load().AllowedAtExec(lastOf(cmd, args).id, args); msg != "" {
				c.w.WriteError(msg)
				continue
			}
			c.s.execCmd(c, cmd, args)
		}
	}
}

func discard(c *client, _ [][]byte) {
	if !c.tx.on {
		c.w.WriteError("ERR DISCARD without MULTI")
		return
	}
	c.tx = tx{}
	c.w.WriteString("OK")
}
