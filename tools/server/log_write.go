package server

import (
	"bytes"
	"context"
	"encoding/binary"
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
	async   bool           // execLogged runs a write: run queues it in queued
	queued  loggedReply    // the write run queued (no acks: answered early)
	replies []loggedReply  // answers owed, in order
	last    map[int]uint64 // stream -> sequence of this connection's last acknowledged write
	early   *replyWriter   // execLogged's writer for a write's immediate answer (never flushed)
}

// loggedReply is an answer owed: raw bytes ready, or a record's result,
// which answers n commands (a run of BF.ADDs is one record), or the
// results of the records of one split write, joined as join says
// (log_split.go).
type loggedReply struct {
	raw  []byte
	acks []*replication.Ack
	n    int
	join joinKind
}

// maxOwed bounds the answers a connection may owe before it waits.
const maxOwed = 4096

// writeWait bounds the wait for the answers of a write, or of a
// pipeline's writes, (their PubAcks and their application here): twice
// the lease TTL (--lease-ttl, DefaultLeaseTTL when failover is off), so
// that a write is answered, -TRYAGAIN at worst, within the time a
// failover takes (an owner that cannot apply its log gives its shard
// up within it).
func (s *Server) writeWait() time.Duration {
	ttl := s.cfg.Replicate.LeaseTTL
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return 2 * ttl
}

// logged reports whether cmd is a keyed write, published to the log.
func (cmd *command) logged() bool { return cmd.first > 0 && slices.Contains(cmd.flags, "write") }

// logs reports whether run publishes c's cmd to the log: a logged
// write, with the log on, from a client that is not applying the log.
func (s *Server) logs(c *client, cmd *command) bool {
	return s.repl != nil && !c.applying && cmd.logged()
}

// run runs cmd, through the log when it is a logged write.
func (s *Server) run(c *client, cmd *command, args [][]byte) {
	if !s.logs(c, cmd) {
		s.runLocal(c, cmd, args)
		return
	}
	log := s.repl.log()
	if log == nil {
		c.w.WriteError("TRYAGAIN " + errLogNotReady.Error())
		return
	}
	stream := s.repl.layout.StreamOf(cluster.KeySlot(args[cmd.first]))
	recs, join := splitWrite(s.recordOf(cmd, args), cmd.name, log.MaxRecordBytes())
	r := loggedReply{n: 1, join: join}
	for _, rec := range recs {
		r.acks = append(r.acks, log.ExecuteAsync(stream, rec))
	}
	if c.js.async {
		c.js.queued = r
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.writeWait())
	defer cancel()
	c.answerWrite(ctx, r)
}

// recordOf is the log's record of a write command (BF.ADD as an OpAdd,
// EXPIRE, PEXPIRE and EXPIREAT as PEXPIREAT at the absolute time,
// expireRecord; the others as an OpCommand), its fields copied from
// args.
func (s *Server) recordOf(cmd *command, args [][]byte) replication.Record {
	if rec, ok := expireRecord(cmd.name, args, s.nowMs); ok {
		return rec
	}
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
	if cmd := s.cmds.lookup(args[0]); cmd == nil || !cmd.logged() || len(c.js.replies) >= maxOwed {
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
	r := c.js.queued
	if r.acks == nil {
		r.raw = bytes.Clone(c.js.early.Bytes())
	}
	c.js.early.Reset()
	c.js.queued = loggedReply{}
	c.js.replies = append(c.js.replies, r)
}

// submitAdds publishes a pipeline's run of BF.ADDs of key (execBatch) as
// one OpAdd record, or as several when it is larger than the log's
// record bound (each of at least one item), answered when owed answers
// are written.
func (s *Server) submitAdds(c *client, log *replication.Log, key []byte, cmds []redcon.Command) {
	stream, most := s.repl.layout.StreamOf(cluster.KeySlot(key)), log.MaxRecordBytes()
	for len(cmds) > 0 {
		fields := [][]byte{key}
		size := replication.RecordSize(replication.Record{Fields: fields}) + binary.MaxVarintLen32
		n := 0
		for ; n < len(cmds) && (n == 0 || size+replication.FieldSize(cmds[n].Args[2]) <= most); n++ {
			fields, size = append(fields, cmds[n].Args[2]), size+replication.FieldSize(cmds[n].Args[2])
		}
		ack := log.ExecuteAsync(stream, replication.Record{Op: replication.OpAdd, Fields: copyArgs(fields)})
		c.js.replies = append(c.js.replies, loggedReply{acks: []*replication.Ack{ack}, n: n})
		cmds = cmds[n:]
	}
}

// answerLogged writes every answer owed, in order, waiting at most
// writeWait for them.
func (s *Server) answerLogged(c *client) {
	if len(c.js.replies) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.writeWait())
	defer cancel()
	for _, r := range c.js.replies {
		if r.acks == nil {
			c.w.WriteRaw(r.raw)
		} else {
			c.answerWrite(ctx, r)
		}
	}
	clear(c.js.replies)
	c.js.replies = c.js.replies[:0]
}

// answerWrite answers an owed write: its record's result (answerAck),
// or the joined results of a split write's records, or its first
// error.
func (c *client) answerWrite(ctx context.Context, r loggedReply) {
	if len(r.acks) == 1 {
		c.answerAck(ctx, r.acks[0], r.n)
		return
	}
	parts := make([][]byte, 0, len(r.acks))
	for _, ack := range r.acks {
		res, msg := c.settle(ctx, ack)
		if msg != "" {
			c.w.WriteError(msg)
			return
		}
		part, _ := res.([]byte)
		parts = append(parts, part)
	}
	c.w.WriteRaw(joinReplies(r.join, parts))
}

// answerAck waits for the result of a record of n commands and answers
// it (an OpAdd's answers, one per item, or a command's reply), or n
// times settle's error.
func (c *client) answerAck(ctx context.Context, ack *replication.Ack, n int) {
	res, msg := c.settle(ctx, ack)
	if msg != "" {
		for range n {
			c.w.WriteError(msg)
		}
		return
	}
	switch res := res.(type) {
	case *addOutcome:
		c.answerAdds(res.present, res.full, res.err)
	case []byte:
		c.w.WriteRaw(res)
	}
}

// settle waits for a record's result and notes its sequence (WAIT),
// or returns the error its write answers: ERR naming the limit for a
// record larger than the log takes (no retry fixes it), else -TRYAGAIN
// when the log did not acknowledge it (nothing was applied here; a
// retry answers as the first call would), or when this node's stream is
// stopped on a record it cannot apply, or when the log discarded the
// record before this node applied it (a bootstrap copied it), or when
// ctx (writeWait) ended first (the write may be in the log: a retry,
// routed to a node that applies it, may answer 0).
func (c *client) settle(ctx context.Context, ack *replication.Ack) (any, string) {
	seq, res, err := ack.Result(ctx)
	if err != nil {
		msg := "TRYAGAIN the replication log did not acknowledge the write: "
		switch {
		case errors.Is(err, replication.ErrTooLarge):
			msg = "ERR the write does not fit the replication log (proto-max-bulk-len is the largest item it takes): "
		case errors.Is(err, replication.ErrStopped):
			msg = "TRYAGAIN this node cannot apply the replication log now: "
		case errors.Is(err, replication.ErrSkipped):
			msg = "TRYAGAIN the write is in the log but its result here is unknown (a retry answers as a repeated write): "
		case errors.Is(err, context.DeadlineExceeded):
			msg = "TRYAGAIN the write was not applied on this node within twice the lease TTL (it may be in the log: a retry may answer 0): "
		}
		return nil, msg + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	if c.js.last == nil {
		c.js.last = map[int]uint64{}
	}
	c.js.last[ack.Stream()] = max(c.js.last[ack.Stream()], seq)
	return res, ""
}
