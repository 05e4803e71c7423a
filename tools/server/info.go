package server

import (
	"sort"
)

// Version is this server's version, reported by INFO as mmapbloom_version.
const Version = "0.1.0"

// INFO [section...]: the sections asked for (obs_info.go), in Redis's
// "field:value" lines.
func info(c *client, args [][]byte) { c.w.WriteBulkString(c.s.infoText(args[1:])) }

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
	case eq(args[1], "INFO"):
		c.w.WriteArray(len(args) - 2)
		for _, a := range args[2:] {
			if cmd := lookupFull(string(a)); cmd != nil {
				c.writeCommandInfo(cmd)
			} else {
				c.w.WriteNull()
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
// specifications and subcommands (the last three empty).
func (c *client) writeCommandInfo(cmd *command) {
	c.w.WriteArray(10)
	c.w.WriteBulkString(cmd.name)
	c.w.WriteInt(cmd.arity)
	c.w.WriteArray(len(cmd.flags))
	for _, f := range cmd.flags {
		c.w.WriteString(f)
	}
	c.w.WriteInt(cmd.first)
	c.w.WriteInt(cmd.last)
	c.w.WriteInt(cmd.step)
	cats := cmd.cats.names()
	c.w.WriteArray(len(cats))
	for _, cat := range cats {
		c.w.WriteString("@" + cat)
	}
	for range 3 {
		c.w.WriteArray(0)
	}
}
