package server

import (
	"bytes"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// observer counts what the server does, for INFO, SLOWLOG, LATENCY and
// the metrics endpoint, in the structures of package obs: per command
// (by command id) its calls, time, rejected and failed calls and a
// latency histogram; error replies by their first word; keys added;
// the slow log and the latency monitor. The per-command path is a few
// atomic adds, no lock.
type observer struct {
	epoch time.Time
	runID string // INFO's run_id
	cmds  []obs.Counters
	kind  []replyKind // by command id: what record reads in a reply
	errs  obs.ErrorStats
	slow  obs.SlowLog
	mon   obs.LatencyMonitor
	mem   memCache
	// added counts the keys BF.ADD, BF.MADD and BF.INSERT answered as
	// new (1).
	added atomic.Int64
	// syncs are the Syncs of the filters (INFO persistence, obs_persist.go).
	syncs *syncStat
	// The run-time parameters, by Redis's names (obs_params.go):
	// slowlog-log-slower-than (µs; 0 logs every command, negative
	// none), slowlog-max-len, latency-tracking, latency-monitor-threshold
	// (ms; 0 off).
	slowerThan atomic.Int64
	slowMax    atomic.Int64
	tracking   atomic.Bool
	monitorMs  atomic.Int64
}

// replyKind says what record reads in a command's reply beyond its
// first byte: the items of an array (errors per item), the keys added.
type replyKind uint8

const (
	replyPlain replyKind = iota
	replyItems           // an array whose items may be errors (BF.MADD...)
	replyAdd             // ":1" is a key added (BF.ADD)
	replyAdds            // an array of adds (BF.MADD, BF.INSERT)
)

// Defaults of the parameters, Redis 7.0's.
const (
	defaultSlowerThan = 10000 // µs
	defaultSlowMax    = 128
)

// newObserver returns the counters of the commands of t, by id.
func newObserver(t *commandSet) *observer {
	o := &observer{epoch: time.Now(), runID: runID(), cmds: make([]obs.Counters, len(t.list)), kind: make([]replyKind, len(t.list)),
		syncs: newSyncStat()}
	for _, cmd := range t.list {
		switch cmd.name {
		case "bf.add":
			o.kind[cmd.id] = replyAdd
		case "bf.madd", "bf.insert":
			o.kind[cmd.id] = replyAdds
		case "bf.mexists":
			o.kind[cmd.id] = replyItems
		}
	}
	o.slowerThan.Store(defaultSlowerThan)
	o.slowMax.Store(defaultSlowMax)
	o.tracking.Store(true)
	return o
}

// now is the monotonic time in ns since the observer started.
func (o *observer) now() int64 { return int64(time.Since(o.epoch)) }

// call runs cmd for c and records it: its time, its reply's errors and
// added keys, a slow log entry when slow. One clock read a command: a
// command's time runs from the end of the previous one of its pipeline
// (or the pipeline's start) to its own end.
func (s *Server) call(c *client, cmd *command, args [][]byte) {
	mark := len(c.w.Bytes())
	s.run(c, cmd, args)
	s.obs.record(c, cmd, args, c.lap(), 1, c.w.Bytes()[mark:])
}

// lap returns the ns since c's clock was last read and restarts it.
func (c *client) lap() int64 {
	now := c.s.obs.now()
	d := now - c.clock
	c.clock = now
	return d
}

// record counts n calls of cmd that took d ns in all and answered
// replies (n replies of one line each when n > 1: a batch).
func (o *observer) record(c *client, cmd *command, args [][]byte, d int64, n int, replies []byte) {
	st := &o.cmds[cmd.id]
	st.Calls.Add(int64(n))
	st.Nanos.Add(d)
	per := d / int64(n)
	if o.tracking.Load() {
		st.Hist.Record(per, uint64(n))
	}
	if failed := o.readReplies(cmd, n, replies); failed > 0 {
		st.Failed.Add(failed)
	}
	if slower := o.slowerThan.Load(); slower >= 0 && per/1000 >= slower {
		o.slow.Add(obs.SlowEntry{Unix: time.Now().Unix(), Usec: per / 1000, Args: obs.SlowArgs(args),
			Addr: c.remoteAddr(), Name: c.stat.getName()}, int(o.slowMax.Load()))
	}
	if ms := o.monitorMs.Load(); ms > 0 && per/1e6 >= ms {
		o.mon.Add(latencyEvent(cmd), time.Now().Unix(), per/1e6)
	}
}

// reject counts a call of cmd refused before it ran (arity,
// authentication, permissions, cluster redirections) and answers msg.
func (c *client) reject(cmd *command, msg string) {
	if cmd != nil {
		c.s.obs.cmds[cmd.id].Rejected.Add(1)
	}
	c.s.obs.errs.Add(msg, 1)
	c.w.WriteError(msg)
}

// readReplies counts the error replies among a command's replies (and
// among an array's items for replyItems and replyAdds commands), by
// their first word, and the keys added; it returns the calls that
// failed (answered an error, or an array holding one).
func (o *observer) readReplies(cmd *command, n int, replies []byte) (failed int64) {
	kind := o.kind[cmd.id]
	if n == 1 && len(replies) > 0 && replies[0] == '*' && kind != replyPlain {
		errs, ones := arrayItems(replies)
		if errs > 0 {
			o.errs.Add(string(firstError(replies)), errs)
			failed = 1
		}
		if kind == replyAdds {
			o.added.Add(ones)
		}
		return failed
	}
	errs, ones := lineReplies(replies)
	if errs > 0 {
		o.errs.Add(string(firstError(replies)), errs)
	}
	if kind == replyAdd {
		o.added.Add(ones)
	}
	return errs
}

// lineReplies counts, in a run of one-line replies, the errors and the
// ":1" integers.
func lineReplies(b []byte) (errs, ones int64) {
	for len(b) > 0 {
		switch {
		case b[0] == '-':
			errs++
		case len(b) >= 4 && b[0] == ':' && b[1] == '1' && b[2] == '\r':
			ones++
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 || b[0] == '$' || b[0] == '*' {
			break // not a run of one-line replies: its first only
		}
		b = b[i+1:]
	}
	return errs, ones
}

// arrayItems counts the errors and ":1" items of an array of one-line
// replies ("*N\r\n" then N lines).
func arrayItems(b []byte) (errs, ones int64) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return 0, 0
	}
	return lineReplies(b[i+1:])
}

// firstError returns the first word of the first error line in b.
func firstError(b []byte) []byte {
	i := bytes.Index(b, []byte("\n-"))
	if len(b) > 0 && b[0] == '-' {
		i = -1
	} else if i < 0 {
		return nil
	}
	line := b[i+2:]
	if j := bytes.IndexAny(line, " \r"); j >= 0 {
		line = line[:j]
	}
	return line
}

// resetStats clears the counters CONFIG RESETSTAT clears: the
// per-command and error counts, histograms and keys added (the changes
// since the last Sync stay as they were, as Redis's dirty count).
func (o *observer) resetStats() {
	for i := range o.cmds {
		o.cmds[i].Reset()
	}
	o.errs.Reset()
	o.syncs.addedAt.Add(-o.added.Swap(0))
}
