package server

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// latencyMonitor is Redis's latency monitor: per event ("command", or
// "fast-command" for commands flagged fast), the latest samples of
// calls that took at least latency-monitor-threshold ms, one per second
// (the larger kept), at most latencySamples of them.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencySeries
}

// latencySamples is Redis's LATENCY_TS_LEN.
const latencySamples = 160

type latencySeries struct {
	samples []latencySample // oldest first
	max     int64           // ms, of every sample since the last reset
}

type latencySample struct{ unix, ms int64 }

// add records that cmd took ms milliseconds.
func (m *latencyMonitor) add(cmd *command, ms int64) {
	event := "command"
	if hasFlag(cmd, "fast") {
		event = "fast-command"
	}
	now := time.Now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencySeries{}
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	if n := len(ts.samples); n > 0 && ts.samples[n-1].unix == now {
		ts.samples[n-1].ms = max(ts.samples[n-1].ms, ms)
		return
	}
	ts.samples = append(ts.samples, latencySample{now, ms})
	if len(ts.samples) > latencySamples {
		ts.samples = ts.samples[1:]
	}
}

func hasFlag(cmd *command, flag string) bool {
	for _, f := range cmd.flags {
		if f == flag {
			return true
		}
	}
	return false
}

// LATENCY LATEST: per event its name, the time and ms of its latest
// sample, and its largest ms.
func latencyLatest(c *client, _ [][]byte) {
	m := &c.s.obs.mon
	m.mu.Lock()
	defer m.mu.Unlock()
	names := sortedKeys(m.events)
	c.w.WriteArray(len(names))
	for _, name := range names {
		ts := m.events[name]
		last := ts.samples[len(ts.samples)-1]
		c.w.WriteArray(4)
		c.w.WriteBulkString(name)
		c.w.WriteInt64(last.unix)
		c.w.WriteInt64(last.ms)
		c.w.WriteInt64(ts.max)
	}
}

// LATENCY HISTORY event: the event's samples, oldest first, as [time,
// ms] pairs.
func latencyHistory(c *client, args [][]byte) {
	m := &c.s.obs.mon
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[strings.ToLower(string(args[2]))]
	if ts == nil {
		c.w.WriteArray(0)
		return
	}
	c.w.WriteArray(len(ts.samples))
	for _, s := range ts.samples {
		c.w.WriteArray(2)
		c.w.WriteInt64(s.unix)
		c.w.WriteInt64(s.ms)
	}
}

// LATENCY RESET [event...]: drops the events named (every event when
// none) and answers how many it dropped.
func latencyReset(c *client, args [][]byte) {
	m := &c.s.obs.mon
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	if len(args) == 2 {
		n = len(m.events)
		m.events = nil
	}
	for _, a := range args[2:] {
		if _, ok := m.events[strings.ToLower(string(a))]; ok {
			delete(m.events, strings.ToLower(string(a)))
			n++
		}
	}
	c.w.WriteInt(n)
}

// LATENCY HISTOGRAM [command...]: per command with calls (every one
// when none are named), its calls and its cumulative histogram in µs
// buckets of powers of two.
func latencyHistogram(c *client, args [][]byte) {
	var cmds []*command
	if len(args) == 2 {
		cmds = commandList
	} else {
		for _, a := range args[2:] {
			if cmd := lookupFull(string(a)); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	type row struct {
		name string
		snap *histSnap
	}
	var rows []row
	for _, cmd := range cmds {
		if snap := c.s.obs.cmds[cmd.id].hist.snapshot(); snap.total > 0 {
			rows = append(rows, row{cmd.name, snap})
		}
	}
	c.writeMapLen(len(rows)) // maps in RESP3, as redis-server 7.0 answers
	for _, r := range rows {
		c.w.WriteBulkString(r.name)
		c.writeMapLen(2)
		c.w.WriteBulkString("calls")
		c.w.WriteInt64(int64(r.snap.total))
		c.w.WriteBulkString("histogram_usec")
		up, cum := r.snap.powerBuckets()
		c.writeMapLen(len(up))
		for i := range up {
			c.w.WriteInt64(up[i] / 1000)
			c.w.WriteInt64(int64(cum[i]))
		}
	}
}

func latencyHelpCmd(c *client, _ [][]byte) {
	c.writeHelp("LATENCY", []string{
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.",
	})
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
