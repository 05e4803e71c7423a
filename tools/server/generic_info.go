package server

import (
	"slices"
)

// Version is this server's version, reported by INFO as mmapbloom_version.
const Version = "0.1.0"

// INFO [section...]: the sections asked for (obs_info.go), in Redis's
// "field:value" lines.
func info(c *client, args [][]byte) { c.writeVerbatim(c.s.infoText(args[1:])) }

// mode is Redis's redis_mode (INFO) and mode (HELLO): "cluster" with
// a cluster config, else "standalone".
func (s *Server) mode() string {
	if s.cluster.Load() != nil {
		return "cluster"
	}
	return "standalone"
}

// COMMAND, and its subcommands COUNT, DOCS [name...], INFO [name...]
// and LIST (commands.go), each named by ACL rules as Redis 7.0 names it
// (command|docs...).

// commandAllCmd is COMMAND: every command's COMMAND INFO entry.
func commandAllCmd(c *client, _ [][]byte) {
	names := c.s.cmds.names()
	c.w.WriteArray(len(names))
	for _, n := range names {
		c.writeCommandInfo(c.s.cmds.byName[n])
	}
}

func commandCountCmd(c *client, _ [][]byte)   { c.w.WriteInt(len(c.s.cmds.byName)) }
func commandDocsCmd(c *client, args [][]byte) { c.writeCommandDocs(args[2:]) }
func commandListCmd(c *client, _ [][]byte)    { c.writeStrings(c.s.cmds.names()) }

// commandInfoCmd is COMMAND INFO [name...]: every command without a name,
// else each named command or subcommand's entry, or nil.
func commandInfoCmd(c *client, args [][]byte) {
	if len(args) == 2 {
		commandAllCmd(c, args)
		return
	}
	c.w.WriteArray(len(args) - 2)
	for _, a := range args[2:] {
		if cmd := c.s.cmds.lookupFull(string(a)); cmd != nil {
			c.writeCommandInfo(cmd)
		} else {
			c.writeNull()
		}
	}
}

// writeCommandInfo writes Redis 7's ten-field COMMAND entry: name, arity,
// flags, first key, last key, step, ACL categories, tips, key
// specifications (writeKeySpecs) and subcommands (each such an entry).
func (c *client) writeCommandInfo(cmd *command) {
	c.w.WriteArray(10)
	c.w.WriteBulkString(cmd.name)
	c.w.WriteInt(cmd.arity)
	c.writeSetLen(len(cmd.flags))
	for _, f := range cmd.flags {
		c.w.WriteString(f)
	}
	c.w.WriteInt(cmd.first)
	c.w.WriteInt(cmd.last)
	c.w.WriteInt(cmd.step)
	cats := c.s.cmds.acl.CategoriesOf(cmd.id)
	c.writeSetLen(len(cats))
	for _, cat := range cats {
		c.w.WriteString("@" + cat)
	}
	// tips, key specifications and subcommands: sets in RESP3 as Redis
	// 7.0 writes them (addReplyCommandTips, addReplyCommandKeySpecs),
	// and the subcommands an array unless there are none
	c.writeSetLen(len(cmd.tips))
	for _, tip := range cmd.tips {
		c.w.WriteBulkString(tip)
	}
	c.writeKeySpecs(cmd)
	if len(cmd.subs) == 0 {
		c.writeSetLen(0)
		return
	}
	c.w.WriteArray(len(cmd.subs))
	for _, sub := range cmd.subs {
		c.writeCommandInfo(sub)
	}
}

// writeKeySpecs writes cmd's key specifications as Redis 7.0 does
// (addReplyCommandKeySpecs): none for a command without keys, else one
// made of the table's key positions, as Redis makes it of a module
// command's first, last and step: the keys begin at index first and run
// to lastkey (last - first, or a negative last as it is) by step, with
// keySpecFlags's flags.
func (c *client) writeKeySpecs(cmd *command) {
	if cmd.first == 0 {
		c.writeSetLen(0)
		return
	}
	if cmd.keyFlagsEach != nil {
		c.writeSetLen(len(cmd.keyFlagsEach))
		for i, flags := range cmd.keyFlagsEach {
			c.writeKeySpec(flags, cmd.first+i, 0, 1)
		}
		return
	}
	last := cmd.last
	if last >= 0 {
		last -= cmd.first
	}
	c.writeSetLen(1)
	c.writeKeySpec(keySpecFlags(cmd), cmd.first, last, cmd.step)
}

// writeKeySpec writes one key specification: its flags, the keys
// beginning at index and running to lastkey by step.
func (c *client) writeKeySpec(flags []string, index, lastkey, step int) {
	c.writeMapLen(3)
	c.w.WriteBulkString("flags")
	c.writeSetLen(len(flags))
	for _, f := range flags {
		c.w.WriteString(f)
	}
	c.writeKeySearch("begin_search", "index", []string{"index"}, []int{index})
	c.writeKeySearch("find_keys", "range", []string{"lastkey", "keystep", "limit"}, []int{lastkey, step, 0})
}

// writeKeySearch writes one step of a key specification: its name, then
// a map of its type and its spec, a map of names to integers.
func (c *client) writeKeySearch(step, typ string, names []string, values []int) {
	c.w.WriteBulkString(step)
	c.writeMapLen(2)
	c.w.WriteBulkString("type")
	c.w.WriteBulkString(typ)
	c.w.WriteBulkString("spec")
	c.writeMapLen(len(names))
	for i, n := range names {
		c.w.WriteBulkString(n)
		c.w.WriteInt(values[i])
	}
}

// fullAccess is Redis 7.0's key specification flags for a module
// command declared by first, last and step only, as RedisBloom 2.8
// declares every BF command (RedisModule_CreateCommand in rebloom.c):
// RW, access and update (CMD_KEY_FULL_ACCESS).
var fullAccess = []string{"RW", "access", "update"}

// keySpecFlags returns the flags of cmd's key specification: the
// table's keyFlags if it names them; fullAccess for the module commands
// (BF.*, MBF.*); RO for Redis's read-only commands (TYPE, EXISTS), as
// Redis 7.0 declares them; else fullAccess.
func keySpecFlags(cmd *command) []string {
	switch {
	case cmd.keyFlags != nil:
		return cmd.keyFlags
	case cmd.docs.group != "module" && slices.Contains(cmd.flags, "readonly"):
		return []string{"RO"}
	}
	return fullAccess
}
