package server

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/tidwall/redcon"
)

// command is one entry of the command table (commands.go), with what
// COMMAND reports.
type command struct {
	name  string // lower case, as Redis reports it
	arity int    // Redis's: n exact (name included), -n at least n
	flags []string
	// first, last, step: the key positions (0: no key; last -1: to the end).
	first, last, step int
	// keyFlags are the flags of COMMAND INFO's key specification where
	// keySpecFlags would derive others (DEL: RM delete).
	keyFlags []string
	// keyFlagsEach, when set, gives each key position (first to last)
	// a key specification of its own with these flags (RENAME: RW
	// access delete, then OW update), as Redis 7.0 declares them.
	keyFlagsEach [][]string
	acl          []string     // ACL categories beyond the flags', "@name"
	id           int          // index in commandSet.list, and in its acl table
	docs         *commandDocs // COMMAND DOCS (every command has them)
	tips         []string     // COMMAND INFO's tips (request_policy:...)
	noAuth       bool         // allowed before AUTH
	write        bool         // Redis's write flag (refused by saveRefusal)
	run          func(c *client, args [][]byte)
	// subs are a container's subcommands (ACL SETUSER...), named
	// "container|sub" once indexed (newCommandSet); run is then nil.
	subs []*command
}

// commandDocs is what COMMAND DOCS reports of a command: Redis 7's
// summary, since, group and argument specs.
type commandDocs struct {
	summary, since, group string
	args                  []argSpec
}

// argSpec is one argument of COMMAND DOCS: its name, Redis's type
// (key, string, integer, double, pure-token, oneof, block), the token
// that introduces it, its flags (optional, multiple) and, for oneof and
// block, its parts.
type argSpec struct {
	name, typ, token string
	flags            []string
	parts            []argSpec
}

// lastKey returns the index of the last key of a call of cmd with n
// arguments (the name included): below cmd.first when it has no key.
func (cmd *command) lastKey(n int) int { return acl.LastKey(cmd.last, n) }

// commandSet is the command table of commands.go indexed: by name, in
// name order (a command's id is its index in list, and in acl), and as
// ACL rules see it. Each Server builds its own in New (newCommandSet):
// a package-level table initialized from commandTable would be an
// initialization cycle, since handlers in the table (COMMAND, ACL CAT,
// MULTI's EXEC, FLUSHALL, INFO) read it; they read their server's.
type commandSet struct {
	byName map[string]*command
	list   []*command
	acl    *acl.Table
}

// newCommandSet indexes cmds (commandTable's), names their subcommands
// "container|sub", numbers them and makes their ACL table. It panics on
// a command without docs (a defect of commands.go).
func newCommandSet(cmds []*command) *commandSet {
	t := &commandSet{byName: make(map[string]*command, len(cmds))}
	for _, c := range cmds {
		t.byName[c.name] = c
	}
	for _, n := range t.names() {
		cmd := t.byName[n]
		t.list = append(t.list, cmd)
		for _, sub := range cmd.subs {
			sub.name = cmd.name + "|" + sub.name
			t.list = append(t.list, sub)
		}
	}
	for i, c := range t.list {
		if c.docs == nil {
			panic("server: command without docs: " + c.name)
		}
		c.id, c.write = i, slices.Contains(c.flags, "write")
	}
	t.acl = newACLTable(t.list)
	return t
}

// names returns the names of the commands (not subcommands), sorted.
func (t *commandSet) names() []string {
	names := make([]string, 0, len(t.byName))
	for n := range t.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lookup returns the command named by name, in any case.
func (t *commandSet) lookup(name []byte) *command {
	var buf [32]byte
	if len(name) > len(buf) {
		return nil
	}
	lower := buf[:len(name)]
	for i, b := range name {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		lower[i] = b
	}
	return t.byName[string(lower)]
}

// lookupFull is lookup that also finds a subcommand by its full name,
// "container|sub" (COMMAND INFO), as ACL rules name it.
func (t *commandSet) lookupFull(name string) *command {
	if id, ok := t.acl.Lookup(name); ok {
		return t.list[id]
	}
	return nil
}

// subcommand returns the subcommand named sub (lower case) of cmd, or
// nil.
func subcommand(cmd *command, sub string) *command {
	if cmd == nil {
		return nil
	}
	for _, s := range cmd.subs {
		if s.name[len(cmd.name)+1:] == sub {
			return s
		}
	}
	return nil
}

// resolve returns the command to run for args: cmd, or the subcommand
// args[1] names when cmd is a container called with an argument (as
// Redis 7.0's lookupCommand: a bare COMMAND runs the container), or the
// error to answer.
func resolve(cmd *command, args [][]byte) (*command, string) {
	if cmd.subs == nil || len(args) == 1 {
		return cmd, ""
	}
	sub := subcommand(cmd, strings.ToLower(string(args[1])))
	switch {
	case sub == nil:
		return nil, fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", clip(args[1]), strings.ToUpper(cmd.name))
	case !arityOK(sub.arity, len(args)):
		return nil, wrongArity(sub.name)
	}
	return sub, ""
}

// execPipeline runs the commands of one read, in order, answering each.
// Runs of BF.ADD or of BF.EXISTS on one key go to the filter as one
// batch call (see bf_batch.go).
func (s *Server) execPipeline(c *client, cmds []redcon.Command) {
	c.clock = s.obs.now()
	c.lease.read = false
	for i := 0; i < len(cmds) && !c.quit; {
		if s.trace != nil {
			s.trace(cmds[i].Args)
		}
		if !c.tx.on {
			if n := s.execBatch(c, cmds[i:]); n > 0 {
				i += n
				continue
			}
		}
		s.execLogged(c, cmds[i].Args)
		i++
	}
	s.answerLogged(c)
	s.afterWrites(c)
	c.afterPipeline()
}

// exec runs one command: table lookup, authentication, arity. As in
// Redis, the lookup makes the command c's last (CLIENT LIST's cmd=),
// whether it then runs, is queued or is refused.
func (s *Server) exec(c *client, args [][]byte) {
	cmd := s.cmds.lookup(args[0])
	c.lastCmd = lastOf(cmd, args)
	s.execCmd(c, cmd, args)
}

// lastOf is the command Redis 7.0 records as last for args, whose name
// looks up cmd: the subcommand args[1] names of a container (nil when
// it has none of that name), else cmd.
func lastOf(cmd *command, args [][]byte) *command {
	if cmd == nil || cmd.subs == nil || len(args) < 2 {
		return cmd
	}
	return subcommand(cmd, strings.ToLower(string(args[1])))
}

// execCmd is exec of cmd, looked up from args[0], leaving c's last
// command as it is (EXEC's queued commands).
func (s *Server) execCmd(c *client, cmd *command, args [][]byte) {
	s.commands.Add(1)
	if c.tx.on && !controlsTx(cmd) {
		s.enqueue(c, cmd, args)
		return
	}
	cmd, msg := s.prepare(c, cmd, args)
	if msg != "" {
		c.reject(cmd, msg)
		return
	}
	if msg := s.foldRefusal(cmd, args); msg != "" {
		c.reject(cmd, msg)
	} else {
		s.call(c, cmd, args)
	}
	s.leave(cmd)
}

// prepare checks a call of cmd, looked up from args[0], before it runs or
// is queued, in Redis's order: the command is known, the client
// authenticated (unless cmd needs none), the arity, the subcommand a
// container names, the user's ACL rules, in cluster mode the keys' slot,
// and the disk (MISCONF after a failed Sync). It returns the command to
// run (the subcommand of a container) and "" with the cluster gate
// entered (the caller calls s.leave), or the command to record and the
// error to answer. The entries of clients (execCmd, execBatch, enqueue)
// all come here; the replication log's records do not (the origin
// checked them, and a follower applies every record as no user).
func (s *Server) prepare(c *client, cmd *command, args [][]byte) (*command, string) {
	switch {
	case cmd == nil:
		return nil, unknownCommand(args)
	case !c.authed && !cmd.noAuth:
		return cmd, "NOAUTH Authentication required."
	case !arityOK(cmd.arity, len(args)):
		return cmd, wrongArity(cmd.name)
	}
	sub, msg := resolve(cmd, args)
	if msg != "" {
		return cmd, msg
	}
	if msg := c.allowed(sub, args); msg != "" {
		return sub, msg
	}
	if msg := s.enter(c, sub, args); msg != "" {
		return sub, msg
	}
	if msg := s.saveRefusal(sub); msg != "" {
		s.leave(sub)
		return sub, msg
	}
	c.noteWrite(sub)
	return sub, ""
}

func arityOK(arity, n int) bool {
	if arity < 0 {
		return n >= -arity
	}
	return n == arity
}

// wrongArity is Redis's arity error for command name.
func wrongArity(name string) string {
	return fmt.Sprintf("ERR wrong number of arguments for '%s' command", name)
}

// unknownCommand is Redis 7's error text for an unknown command: the
// name and the first arguments, each quoted and cut at 128 bytes.
func unknownCommand(args [][]byte) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "ERR unknown command '%s', with args beginning with: ", clip(args[0]))
	for _, a := range args[1:] {
		if sb.Len() > 512 {
			break
		}
		fmt.Fprintf(&sb, "'%s' ", clip(a))
	}
	return sb.String()
}

// clip cuts b at 128 bytes and makes it safe in an error line (Redis
// replaces newlines in error replies with spaces).
func clip(b []byte) []byte {
	if len(b) > 128 {
		b = b[:128]
	}
	if bytes.ContainsAny(b, "\r\n") {
		b = bytes.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return ' '
			}
			return r
		}, b)
	}
	return b
}

// eq reports whether arg equals word (upper case) in any case.
func eq(arg []byte, word string) bool { return strings.EqualFold(string(arg), word) }
