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
	c.lastCmd = cmd
	mark := len(replyBuf(c.w))
	s.runBatch(c, kind == "bf.add", cmds[:n])
	s.obs.record(c, cmd, cmds[0].Args, c.lap(), n, replyBuf(c.w)[mark:])
	s.leave(cmd)
	return n
}

// runBatch runs cmds, BF.ADDs (add) or BF.EXISTSs of one key, as one
// batch call and answers each.
func (s *Server) runBatch(c *client, add bool, cmds []redcon.Command) {
	n := len(cmds)
	items := c.batchItems(cmds)
	s.commands.Add(int64(n))
	present := c.scratch(n)
	clear(present)
	var create *createSpec
	if add {
		create = s.autoCreate()
	}
	var full []bool // BF.ADDs a full NONSCALING filter refused
	err := c.use(cmds[0].Args[1], create, func(b Bloom) (err error) {
		if create != nil {
			full, err = c.addEach(b, items, present)
			return err
		}
		return b.TestBatch(items, present)
	})
	clear(items)
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
	case asciiEqualFold(args[0], "bf.add"):
		return "bf.add"
	case asciiEqualFold(args[0], "bf.exists"):
		return "bf.exists"
	}
	return ""
}

// asciiEqualFold reports whether b equals lower (lower case ASCII) in
// any case: bytes.EqualFold's Unicode folding cost a third of a batched
// BF.EXISTS's instructions in execPipeline.
func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
