package server

import "github.com/mmapbloom/mmapbloom/tools/server/obs"

// SLOWLOG GET [count]: the newest count entries (10; -1: all).
func slowlogGet(c *client, args [][]byte) {
	n := int64(10)
	if len(args) > 3 {
		c.w.WriteError(msgSyntax)
		return
	}
	if len(args) == 3 {
		v, ok := parseInt(args[2])
		if !ok || v < -1 {
			c.w.WriteError("ERR count should be greater than or equal to -1")
			return
		}
		n = v
	}
	c.writeSlowEntries(c.s.obs.slow.Latest(int(min(n, 1<<30))))
}

func slowlogLen(c *client, _ [][]byte) { c.w.WriteInt(c.s.obs.slow.Len()) }

func slowlogReset(c *client, _ [][]byte) {
	c.s.obs.slow.Reset()
	c.w.WriteString("OK")
}

func slowlogHelpCmd(c *client, _ [][]byte) { c.writeHelp("SLOWLOG", slowlogHelp) }

var slowlogHelp = []string{
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
}

// writeSlowEntries answers SLOWLOG GET: per entry its id, Unix time,
// µs, arguments, client address and name.
func (c *client) writeSlowEntries(es []obs.SlowEntry) {
	c.w.WriteArray(len(es))
	for _, e := range es {
		c.w.WriteArray(6)
		c.w.WriteInt64(e.ID)
		c.w.WriteInt64(e.Unix)
		c.w.WriteInt64(e.Usec)
		c.w.WriteArray(len(e.Args))
		for _, a := range e.Args {
			c.w.WriteBulkString(a)
		}
		c.w.WriteBulkString(e.Addr)
		c.w.WriteBulkString(e.Name)
	}
}

// writeHelp answers a HELP subcommand as Redis: a header line, the
// lines, and HELP's own.
func (c *client) writeHelp(cmd string, lines []string) {
	c.w.WriteArray(len(lines) + 3)
	c.w.WriteString(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.w.WriteString(l)
	}
	c.w.WriteString("HELP")
	c.w.WriteString("    Print this help.")
}
