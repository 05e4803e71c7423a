package obs

import (
	"bytes"
	"fmt"
	"sync"
)

// SlowLog is Redis's slow log: the latest commands that took at least
// slowlog-log-slower-than µs, at most slowlog-max-len of them.
type SlowLog struct {
	mu      sync.Mutex
	entries []SlowEntry // oldest first
	nextID  int64
}

// SlowEntry is one logged command, as SLOWLOG GET answers it.
type SlowEntry struct {
	ID   int64    // set by Add: 0 for the first entry since the log was made, then +1 each
	Unix int64    // when the command ran, seconds since 1970
	Usec int64    // how long it took, µs
	Args []string // what the log keeps of its arguments (SlowArgs)
	Addr string   // the client's address, ip:port
	Name string   // the client's name (CLIENT SETNAME), "" for none
}

// Redis's bounds on what one entry keeps of a command
// (SLOWLOG_ENTRY_MAX_ARGC, SLOWLOG_ENTRY_MAX_STRING).
const (
	slowMaxArgs  = 32
	slowMaxBytes = 128
)

// Add logs e under the next ID, then drops the oldest entries beyond
// the newest max.
func (l *SlowLog) Add(e SlowEntry, max int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.ID = l.nextID
	l.nextID++
	l.entries = append(l.entries, e)
	if over := len(l.entries) - max; over > 0 {
		l.entries = append(l.entries[:0], l.entries[over:]...)
	}
}

// SlowArgs copies what the slow log keeps of a command's arguments
// (args[0] the command's name): at most 32, the last saying how many
// more there were, each cut at 128 bytes, and passwords replaced by
// "(redacted)" as Redis does (AUTH's, HELLO's after AUTH, ACL
// SETUSER's rules, CONFIG SET of requirepass or masterauth).
func SlowArgs(args [][]byte) []string {
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

// redactFrom returns the index of the first argument the slow log
// hides, len(args) when none.
func redactFrom(args [][]byte) int {
	is := func(i int, word string) bool { return bytes.EqualFold(args[i], []byte(word)) }
	switch {
	case len(args) == 0:
	case is(0, "AUTH"):
		return 1
	case is(0, "HELLO"):
		for i := 2; i < len(args); i++ {
			if is(i, "AUTH") {
				return i + 1
			}
		}
	case is(0, "ACL") && len(args) > 2 && is(1, "SETUSER"):
		return 3
	case is(0, "CONFIG") && len(args) > 3 && is(1, "SET") && (is(2, "REQUIREPASS") || is(2, "MASTERAUTH")):
		return 3
	}
	return len(args)
}

// Latest returns the newest n entries, newest first (n < 0: all).
func (l *SlowLog) Latest(n int) []SlowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	out := make([]SlowEntry, n)
	for i := range out {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

// Len returns the number of entries.
func (l *SlowLog) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Reset drops every entry; IDs go on from where they were, as Redis's.
func (l *SlowLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}
