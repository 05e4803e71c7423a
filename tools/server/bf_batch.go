package server

import (
	"bytes"

	"github.com/tidwall/redcon"
)

// execBatch runs a run of consecutive pipelined BF.ADD (or BF.EXISTS)
// commands on one key, at the start of cmds, as one TestAndAddBatch (or
// TestBatch) call, and answers each as its own command would. It returns
// how many commands it ran: 0 when cmds does not start with such a run
// of at least two (or the client must authenticate first).
func (s *Server) execBatch(c *client, cmds []redcon.Command) int {
	if s.noBatch || !c.authed || len(cmds) < 2 || len(c.js.replies) > 0 {
		return 0
	}
	kind := batchKind(cmds[0].Args)
	if kind == "" || kind == "bf.add" && s.repl != nil {
		return 0 // with the log, each BF.ADD is a record (replica_jetstream_write.go)
	}
	key := cmds[0].Args[1]
	n := 1
	for n < len(cmds) && n < maxBatch && batchKind(cmds[n].Args) == kind && bytes.Equal(cmds[n].Args[1], key) {
		n++
	}
	if n < 2 {
		return 0
	}
	cmd := lookup(cmds[0].Args[0])
	if c.allowed(cmd, cmds[0].Args) != "" {
		return 0 // exec answers each with its NOPERM
	}
	if s.enter(c, cmd, cmds[0].Args) != "" {
		return 0 // exec answers each with its redirection
	}
	defer s.leave(cmd)
	c.lastCmd = cmd
	mark := len(replyBuf(c.w))
	defer func() { s.obs.record(c, cmd, cmds[0].Args, c.lap(), n, replyBuf(c.w)[mark:]) }()
	items := c.batchItems(cmds[:n])
	defer clear(items)
	s.commands.Add(int64(n))
	present := c.scratch(n)
	clear(present)
	var create *createSpec
	if kind == "bf.add" {
		create = s.autoCreate()
	}
	var full []bool // BF.ADDs a full NONSCALING filter refused
	err := c.use(key, create, func(b Bloom) (err error) {
		if create != nil {
			full, err = c.addEach(b, items, present)
			return err
		}
		return b.TestBatch(items, present)
	})
	for i := 0; i < n; i++ {
		switch {
		case err != nil && (create != nil || !absent(err)):
			c.replyErr(err)
		case full != nil && full[i]:
			c.w.WriteError(msgNonScalingFull)
		case create != nil:
			c.writeBool(!present[i])
		default:
			c.writeBool(err == nil && present[i])
		}
	}
	return n
}

// batchItems returns the items of cmds (each one's third argument), in
// c's reused slice.
func (c *client) batchItems(cmds []redcon.Command) [][]byte {
	c.items = c.items[:0]
	for _, cmd := range cmds {
		c.items = append(c.items, cmd.Args[2])
	}
	return c.items
}

// maxBatch bounds one batch call, so a long pipeline answers in steps.
const maxBatch = 1024

// batchKind returns the name of a batchable command with the right
// number of arguments, BF.ADD or BF.EXISTS, else "".
func batchKind(args [][]byte) string {
	switch {
	case len(args) != 3:
		return ""
	case bytes.EqualFold(args[0], []byte("bf.add")):
		return "bf.add"
	case bytes.EqualFold(args[0], []byte("bf.exists")):
		return "bf.exists"
	}
	return ""
}
