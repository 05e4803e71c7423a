package server

import (
	"sort"
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

// COMMAND [COUNT|DOCS|INFO name...|LIST]
func commandCmd(c *client, args [][]byte) {
	switch {
	case len(args) == 1:
		names := commandNames()
		c.w.WriteArray(len(names))
		for _, n := range names {
			c.writeCommandInfo(commands[n])
		}
	case eq(args[1], "COUNT") && len(args) == 2:
		c.w.WriteInt(len(commands))
	case eq(args[1], "DOCS"):
		c.writeCommandDocs(args[2:])
	case eq(args[1], "LIST") && len(args) == 2:
		names := commandNames()
		c.w.WriteArray(len(names))
		for _, n := range names {
			c.w.WriteBulkString(n)
		}
	case eq(args[1], "INFO") && len(args) == 2:
		commandCmd(c, args[:1])
	case eq(args[1], "INFO"):
		c.w.WriteArray(len(args) - 2)
		for _, a := range args[2:] {
			if cmd := lookupFull(string(a)); cmd != nil {
				c.writeCommandInfo(cmd)
			} else {
				c.writeNull()
			}
		}
	default:
		c.w.WriteError("ERR unknown subcommand or wrong number of arguments for '" + string(clip(args[1])) + "'. Try COMMAND HELP.")
	}
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeCommandInfo writes Redis 7's ten-field COMMAND entry: name, arity,
// flags, first key, last key, step, ACL categories, tips, key
// specifications (none reported) and subcommands (each such an entry).
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
	cats := cmd.cats.names()
	c.writeSetLen(len(cats))
	for _, cat := range cats {
		c.w.WriteString("@" + cat)
	}
	// tips, key specifications and subcommands: sets in RESP3 as Redis
	// 7.0 writes them (addReplyCommandTips, addReplyCommandKeySpecs),
	// and the subcommands an array unless there are none
	c.writeSetLen(len(cmd.tips))
	for _, tip := range cmd.tips {
		c.w.WriteString(tip)
	}
	c.writeSetLen(0)
	if len(cmd.subs) == 0 {
		c.writeSetLen(0)
		return
	}
	c.w.WriteArray(len(cmd.subs))
	for _, sub := range cmd.subs {
		c.writeCommandInfo(sub)
	}
}
