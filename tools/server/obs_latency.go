package server

import (
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// latencyEvent is the latency monitor's event of cmd: "fast-command"
// for a command flagged fast, else "command".
func latencyEvent(cmd *command) string {
	if hasFlag(cmd, "fast") {
		return "fast-command"
	}
	return "command"
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
	events := c.s.obs.mon.Latest()
	c.w.WriteArray(len(events))
	for _, e := range events {
		c.w.WriteArray(4)
		c.w.WriteBulkString(e.Name)
		c.w.WriteInt64(e.Latest.Unix)
		c.w.WriteInt64(e.Latest.Ms)
		c.w.WriteInt64(e.Max)
	}
}

// LATENCY HISTORY event: the event's samples, oldest first, as [time,
// ms] pairs.
func latencyHistory(c *client, args [][]byte) {
	samples := c.s.obs.mon.History(strings.ToLower(string(args[2])))
	c.w.WriteArray(len(samples))
	for _, s := range samples {
		c.w.WriteArray(2)
		c.w.WriteInt64(s.Unix)
		c.w.WriteInt64(s.Ms)
	}
}

// LATENCY RESET [event...]: drops the events named (every event when
// none) and answers how many it dropped.
func latencyReset(c *client, args [][]byte) {
	events := make([]string, len(args)-2)
	for i, a := range args[2:] {
		events[i] = strings.ToLower(string(a))
	}
	c.w.WriteInt(c.s.obs.mon.Reset(events...))
}

// LATENCY HISTOGRAM [command...]: per command with calls (every one
// when none are named), its calls and its cumulative histogram in µs
// buckets of powers of two.
func latencyHistogram(c *client, args [][]byte) {
	var cmds []*command
	if len(args) == 2 {
		cmds = c.s.cmds.list
	} else {
		for _, a := range args[2:] {
			if cmd := c.s.cmds.lookupFull(string(a)); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	type row struct {
		name string
		snap *obs.Snapshot
	}
	var rows []row
	for _, cmd := range cmds {
		if snap := c.s.obs.cmds[cmd.id].Hist.Snapshot(); snap.Total > 0 {
			rows = append(rows, row{cmd.name, snap})
		}
	}
	c.writeMapLen(len(rows)) // maps in RESP3, as redis-server 7.0 answers
	for _, r := range rows {
		c.w.WriteBulkString(r.name)
		c.writeMapLen(2)
		c.w.WriteBulkString("calls")
		c.w.WriteInt64(int64(r.snap.Total))
		c.w.WriteBulkString("histogram_usec")
		up, cum := r.snap.PowerBuckets()
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
