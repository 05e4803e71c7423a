package server

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/redcon"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// With the log, a write command is a record of its slot's stream; its
// answer is its reply where this node applied it, at its place in the
// log, after the PubAck. A pipeline's writes are all submitted before
// the first answer is awaited, so they share messages (group commit)
// instead of costing a round trip each; any other command first waits
// for the answers owed (it sees the writes before it).

// jsConn is a connection's replication state.
type jsConn struct {
	async   bool             // execLogged runs a write: run queues it in ack
	ack     *replication.Ack // the record run queued
	replies []loggedReply    // answers owed, in order
	last    map[int]uint64   // stream -> sequence of this connection's last acknowledged write
	early   *replyWriter     // execLogged's writer for a write's immediate answer (never flushed)
}

// loggedReply is an answer owed: raw bytes ready, or a record's result,
// which answers n commands (a run of BF.ADDs is one record).
type loggedReply struct {
	raw []byte
	ack *replication.Ack
	n   int
}

// maxOwed bounds the answers a connection may owe before it waits.
const maxOwed = 4096

// applyWait bounds the wait for a write's PubAck and local application.
const applyWait = time.Minute

// logged reports whether cmd is a keyed write, published to the log.
func (cmd *command) logged() bool { return cmd.first > 0 && slices.Contains(cmd.flags, "write") }

// run runs cmd, through the log when it is a logged write.
func (s *Server) run(c *client, cmd *command, args [][]byte) {
	if s.repl == nil || c.applying || !cmd.logged() {
		s.runLocal(c, cmd, args)
		return
	}
	log := s.repl.log()
	if log == nil {
		c.w.WriteError("TRYAGAIN " + errLogNotReady.Error())
		return
	}
	stream := s.repl.layout.StreamOf(cluster.KeySlot(args[cmd.first]))
	ack := log.ExecuteAsync(stream, recordOf(cmd, args))
	if c.js.async {
		c.js.ack = ack
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), applyWait)
	defer cancel()
	c.answerAck(ctx, ack, 1)
}

// recordOf is the log's record of a write command (BF.ADD as an OpAdd,
// the others as an OpCommand), its fields copied from args.
func recordOf(cmd *command, args [][]byte) replication.Record {
	rec := replication.Record{Op: replication.OpCommand, Fields: copyArgs(args)}
	if cmd.name == "bf.add" {
		rec = replication.Record{Op: replication.OpAdd, Fields: rec.Fields[1:]}
	}
	return rec
}

// copyArgs copies args (which alias the connection's read buffer) into
// one allocation.
func copyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf, out := make([]byte, 0, n), make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}

// execLogged runs one command of a pipeline: a logged write is queued
// (its early errors, MOVED or arity, kept in order), anything else
// first answers what is owed.
func (s *Server) execLogged(c *client, args [][]byte) {
	if s.repl == nil || c.tx.on {
		s.exec(c, args)
		return
	}
	if cmd := lookup(args[0]); cmd == nil || !cmd.logged() || len(c.js.replies) >= maxOwed {
		s.answerLogged(c)
		s.exec(c, args)
		return
	}
	if c.js.early == nil {
		c.js.early = new(replyWriter)
	}
	w := c.w
	c.w, c.js.async = c.js.early, true
	s.exec(c, args)
	c.w, c.js.async = w, false
	r := loggedReply{ack: c.js.ack, n: 1}
	if r.ack == nil {
		r.raw = bytes.Clone(c.js.early.Bytes())
	}
	c.js.early.Reset()
	c.js.ack = nil
	c.js.replies = append(c.js.replies, r)
}

// submitAdds publishes a pipeline's run of BF.ADDs of key (execBatch) as
// one OpAdd record, answered when owed answers are written.
func (s *Server) submitAdds(c *client, log *replication.Log, key []byte, cmds []redcon.Command) {
	fields := make([][]byte, 1, len(cmds)+1)
	fields[0] = key
	for _, cmd := range cmds {
		fields = append(fields, cmd.Args[2])
	}
	stream := s.repl.layout.StreamOf(cluster.KeySlot(key))
	ack := log.ExecuteAsync(stream, replication.Record{Op: replication.OpAdd, Fields: copyArgs(fields)})
	c.js.replies = append(c.js.replies, loggedReply{ack: ack, n: len(cmds)})
}

// answerLogged writes every answer owed, in order, waiting at most
// applyWait for them.
func (s *Server) answerLogged(c *client) {
	if len(c.js.replies) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), applyWait)
	defer cancel()
	for _, r := range c.js.replies {
		if r.ack == nil {
			c.w.WriteRaw(r.raw)
		} else {
			c.answerAck(ctx, r.ack, r.n)
		}
	}
	clear(c.js.replies)
	c.js.replies = c.js.replies[:0]
}

// answerAck waits for the result of a record of n commands and answers
// it (an OpAdd's answers, one per item, or a command's reply), or n
// -TRYAGAIN when the log did not acknowledge it (nothing was applied
// here; a retry answers as the first call would), or when this node's
// stream is stopped on a record it cannot apply (the write may be in
// the log: a retry, routed to a node that applies it, may answer 0).
func (c *client) answerAck(ctx context.Context, ack *replication.Ack, n int) {
	seq, res, err := ack.Result(ctx)
	if err != nil {
		msg := "TRYAGAIN the replication log did not acknowledge the write: "
		if errors.Is(err, replication.ErrStopped) {
			msg = "TRYAGAIN this node cannot apply the replication log now: "
		}
		msg += strings.ReplaceAll(err.Error(), "\n", " ")
		for range n {
			c.w.WriteError(msg)
		}
		return
	}
	if c.js.last == nil {
		c.js.last = map[int]uint64{}
	}
	c.js.last[ack.Stream()] = max(c.js.last[ack.Stream()], seq)
	switch res := res.(type) {
	case *addOutcome:
		c.answerAdds(res.present, res.full, res.err)
	case []byte:
		c.w.WriteRaw(res)
	}
}
