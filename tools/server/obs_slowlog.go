package server

import (
	"fmt"
	"sync"
	"time"
)

// slowlog is Redis's slow log: the latest commands that took at least
// slowlog-log-slower-than µs, newest first, at most slowlog-max-len.
type slowlog struct {
	mu      sync.Mutex
	entries []slowEntry // oldest first
	nextID  int64
}

// slowEntry is one logged command, as SLOWLOG GET answers it.
type slowEntry struct {
	id, unix, usec int64
	args           []string
	addr, name     string
}

// Redis's bounds on what one entry keeps of a command
// (SLOWLOG_ENTRY_MAX_ARGC, SLOWLOG_ENTRY_MAX_STRING).
const (
	slowMaxArgs  = 32
	slowMaxBytes = 128
)

// add logs a command of c with args that took usec µs, keeping the
// newest max entries.
func (l *slowlog) add(c *client, args [][]byte, usec int64, max int) {
	e := slowEntry{unix: time.Now().Unix(), usec: usec, args: slowArgs(args), addr: c.remoteAddr(), name: c.stat.getName()}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.id = l.nextID
	l.nextID++
	l.entries = append(l.entries, e)
	if over := len(l.entries) - max; over > 0 {
		l.entries = append(l.entries[:0], l.entries[over:]...)
	}
}

// slowArgs copies what the slow log keeps of a command's arguments:
// at most 32 (the last saying how many more there were), each cut at
// 128 bytes, and passwords replaced by "(redacted)" as Redis does.
func slowArgs(args [][]byte) []string {
	n := min(len(args), slowMaxArgs)
	out := make([]string, n)
	redact := redactFrom(args)
	for i := range n {
		a := args[i]
		switch {
		case i == slowMaxArgs-1 && len(args) > slowMaxArgs:
			out[i] = fmt.Sprintf("... (%d more arguments)", len(args)-slowMaxArgs+1)
		case i >= redact:
			out[i] = "(redacted)"
		case len(a) > slowMaxBytes:
			out[i] = fmt.Sprintf("%s... (%d more bytes)", a[:slowMaxBytes], len(a)-slowMaxBytes)
		default:
			out[i] = string(a)
		}
	}
	return out
}

// redactFrom returns the index of the first argument the slow log hides
// (AUTH's, HELLO's after AUTH, ACL SETUSER's rules, CONFIG SET of a
// password), len(args) when none.
func redactFrom(args [][]byte) int {
	switch {
	case eq(args[0], "AUTH"):
		return 1
	case eq(args[0], "HELLO"):
		for i := 2; i < len(args); i++ {
			if eq(args[i], "AUTH") {
				return i + 1
			}
		}
	case eq(args[0], "ACL") && len(args) > 2 && eq(args[1], "SETUSER"):
		return 3
	case eq(args[0], "CONFIG") && len(args) > 3 && eq(args[1], "SET") && (eq(args[2], "REQUIREPASS") || eq(args[2], "MASTERAUTH")):
		return 3
	}
	return len(args)
}

// latest returns the newest n entries, newest first (n < 0: all).
func (l *slowlog) latest(n int) []slowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	out := make([]slowEntry, n)
	for i := range out {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

func (l *slowlog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *slowlog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

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
	c.writeSlowEntries(c.s.obs.slow.latest(int(min(n, 1<<30))))
}

func slowlogLen(c *client, _ [][]byte) { c.w.WriteInt(c.s.obs.slow.len()) }

func slowlogReset(c *client, _ [][]byte) {
	c.s.obs.slow.reset()
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
func (c *client) writeSlowEntries(es []slowEntry) {
	c.w.WriteArray(len(es))
	for _, e := range es {
		c.w.WriteArray(6)
		c.w.WriteInt64(e.id)
		c.w.WriteInt64(e.unix)
		c.w.WriteInt64(e.usec)
		c.w.WriteArray(len(e.args))
		for _, a := range e.args {
			c.w.WriteBulkString(a)
		}
		c.w.WriteBulkString(e.addr)
		c.w.WriteBulkString(e.name)
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
