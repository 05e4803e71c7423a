package server

import (
	"bytes"
	"errors"

	"github.com/tidwall/redcon"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// execBatch runs a run of consecutive pipelined BF.ADD (or BF.EXISTS)
// commands on one key, at the start of cmds, as one TestAndAddBatch (or
// TestBatch) call, and answers each as its own command would. It returns
// how many commands it ran: 0 when cmds does not start with such a run
// of at least two (or the client must authenticate first).
func (s *Server) execBatch(c *client, cmds []redcon.Command) int {
	if s.noBatch || !c.authed || len(cmds) < 2 {
		return 0
	}
	kind := batchKind(cmds[0].Args)
	log, ok := s.batchLog(c, kind)
	if !ok {
		return 0
	}
	key := cmds[0].Args[1]
	n := 1
	for n < len(cmds) && n < maxBatch && batchKind(cmds[n].Args) == kind && bytes.Equal(cmds[n].Args[1], key) {
		n++
	}
	if n < 2 {
		return 0
	}
	cmd, msg := s.prepare(c, s.cmds.lookup(cmds[0].Args[0]), cmds[0].Args)
	if msg != "" {
		return 0 // exec answers each with its error (NOPERM, a redirection, MISCONF)
	}
	c.lastCmd = cmd
	mark := len(c.w.Bytes())
	s.commands.Add(int64(n))
	if log != nil {
		s.submitAdds(c, log, key, cmds[:n])
	} else {
		s.runBatch(c, kind == "bf.add", cmds[:n])
	}
	s.obs.record(c, cmd, cmds[0].Args, c.lap(), n, c.w.Bytes()[mark:])
	s.leave(cmd)
	return n
}

// runBatch runs cmds, BF.ADDs (add) or BF.EXISTSs of one key, as one
// batch call and answers each.
func (s *Server) runBatch(c *client, add bool, cmds []redcon.Command) {
	items := c.batchItems(cmds)
	present := c.scratch(len(cmds))
	clear(present)
	var create *store.Spec
	if add {
		create = s.autoCreate()
	}
	var full []bool // BF.ADDs a full NONSCALING filter refused
	var err error
	if create != nil {
		s.journalAdds(c, cmds, func() {
			err = c.use(cmds[0].Args[1], create, func(b store.Bloom) (err error) {
				full, err = c.addEach(b, items, present)
				return err
			})
		})
	} else {
		err = c.use(cmds[0].Args[1], nil, func(b store.Bloom) error { return b.TestBatch(items, present) })
	}
	clear(items)
	if create != nil {
		c.answerAdds(present, full, err)
		return
	}
	for i := range present {
		if err != nil && !absent(err) {
			c.replyErr(err)
		} else {
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

// answerAdds answers BF.ADDs: item i new or not (present[i]), refused
// by a full NONSCALING filter (full[i], when full is not nil), or err
// for every item.
func (c *client) answerAdds(present, full []bool, err error) {
	for i := range present {
		switch {
		case err != nil:
			c.replyErr(err)
		case full != nil && full[i]:
			c.w.WriteError(msgNonScalingFull)
		default:
			c.writeBool(!present[i])
		}
	}
}

// batchLog says whether a run of kind may be batched now, and the log
// a run of BF.ADDs is then published to as one record (nil without
// replication). With the log, BF.ADDs are not batched while it is not
// open or too many answers are owed (execLogged answers them), and
// BF.EXISTS not while answers are owed (a read sees the writes before
// it, log_write.go).
func (s *Server) batchLog(c *client, kind string) (*replication.Log, bool) {
	switch {
	case kind == "":
		return nil, false
	case kind == "bf.add" && s.repl != nil:
		log := s.repl.log()
		return log, log != nil && len(c.js.replies) < maxOwed
	}
	return nil, len(c.js.replies) == 0
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

// A long batch call (a BF.MADD of many keys into a set that keeps
// growing) runs in steps, and stops between two steps once its client
// has closed the connection: nobody is left to read the answer.

// addWork bounds the layer probes of one step: a step takes
// addWork / layers keys (at least 1, at most maxStep), since a key costs
// a probe of each layer, so that a set of many layers is checked often.
const (
	addWork = 4096
	maxStep = 1024
)

// errClientGone stops a batch whose client closed its connection.
var errClientGone = errors.New("the client closed the connection")

// addBatch is b.TestAndAddBatch(items, present) in steps of
// addWork / layers keys, stopping with errClientGone when c's client has
// left.
func (c *client) addBatch(b store.Bloom, items [][]byte, present []bool) error {
	for i := 0; i < len(items); {
		if i > 0 && c.gone() {
			return errClientGone
		}
		end := min(i+max(1, min(maxStep, addWork/max(1, b.Layers()))), len(items))
		if err := b.TestAndAddBatch(items[i:end], present[i:end]); err != nil {
			return err
		}
		i = end
	}
	return nil
}
