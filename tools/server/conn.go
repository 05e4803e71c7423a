package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
)

// client is one connection and its session state.
type client struct {
	s      *Server
	nc     net.Conn
	in     *guard
	w      *replyWriter
	id     int64
	authed bool                     // AUTH succeeded, or the default user needs none
	user   atomic.Pointer[acl.User] // the ACL user it runs as (acl.go)
	// readonly: READONLY was sent (cluster mode): a replica serves this
	// connection's reads of its primary's slots; READWRITE clears it.
	readonly bool
	name     string
	quit     bool
	wrote    bool // the pipeline ran a write command (save_appendfsync.go)
	resp3    bool // HELLO 3 was sent: replies in RESP3 (conn_resp3.go)
	tx       tx   // MULTI ... EXEC (generic_multi.go)

	present []bool   // answers of batch calls, reused
	items   [][]byte // items of a batch of commands (bf_batch.go), reused
	// stemKey and stem are the last key a command used and its file-name
	// stem (stemOf).
	stemKey []byte
	stem    string

	// applying marks the client running the log's records on this node
	// (log_apply.go): its writes are not published again.
	applying bool
	// applyErr is, while applying, the first error a command answered
	// that is not a record's result (classify; noteApplyErr).
	applyErr error
	// js is the connection's replication state (log_write.go).
	js   jsConn
	stat clientStat
	// lastCmd is the command last looked up, as Redis's lastcmd (nil for
	// an unknown one; dispatch.go); clock the observer time its run
	// started from (obs_stats.go).
	lastCmd *command
	clock   int64
	// lease is the lease clock as the pipeline read it (cluster_lease.go).
	lease leaseClock
	// deadline is the observer time of the connection's deadline, 0 for
	// none (armIdle).
	deadline int64
}

func newClient(s *Server, nc net.Conn) *client {
	in := &guard{r: nc, max: s.cfg.MaxRequest}
	c := &client{s: s, nc: nc, in: in, w: newReplyWriter(nc),
		id: s.nextID.Add(1), authed: s.acl.Open()}
	c.user.Store(s.acl.Get("default"))
	c.stat.init(nc, s.obs.now())
	return c
}

// serveClient reads pipelines of commands and answers them until the
// client quits, fails, idles out or the server shuts down.
func (s *Server) serveClient(c *client) {
	defer s.handlers.Done()
	defer s.drop(c)
	if !s.handshake(c) {
		return
	}
	for !s.closing.Load() {
		if !s.armIdle(c, s.obs.now()) {
			return
		}
		cmds, err := c.in.readPipeline()
		if err != nil {
			c.fail(err)
			return
		}
		s.execPipeline(c, cmds)
		s.armIdle(c, c.clock) // once closing, the write deadline is Shutdown's
		if err := c.w.Flush(); err != nil || c.quit {
			return
		}
	}
}

// handshake runs a TLS client's handshake within Config.TLSHandshake
// and reports whether it succeeded; a plain client needs none. Shutdown
// ends it at once (interrupt's read deadline).
func (s *Server) handshake(c *client) bool {
	tc, ok := c.nc.(*tls.Conn)
	if !ok {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.TLSHandshake)
	defer cancel()
	return tc.HandshakeContext(ctx) == nil
}

// armIdle keeps c's deadline, of reads and writes alike, between the
// idle time (CONFIG SET timeout, Config.ClientIdle) and an eighth more
// after now (observer time), moving it only when it falls outside: so a
// busy connection sets its deadline once in an eighth of the idle time
// rather than twice a pipeline (a clock read and a runtime timer change
// each), and a client that sends nothing, or reads none of its replies,
// is dropped after between the idle time and 9/8 of it. It reports
// false once the server is shutting down, leaving Shutdown's deadlines
// (interrupt).
func (s *Server) armIdle(c *client, now int64) bool {
	idle := s.conf.idle.Load()
	want := int64(0) // no deadline
	if idle > 0 {
		if left := c.deadline - now; c.deadline != 0 && left >= idle && left <= idle+idle/8 {
			return true
		}
		want = now + idle + idle/8
	} else if c.deadline == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	c.deadline = want
	at := time.Time{}
	if want != 0 {
		at = s.obs.epoch.Add(time.Duration(want))
	}
	_ = c.nc.SetDeadline(at)
	return true
}

// rearmIdle applies a new idle time to every connection at once, those
// blocked in a read included, as Redis's client cron closes any client
// idle past timeout: each gets a deadline of now plus the idle time (to
// an eighth more), or none for never. Each connection's own armIdle
// moves it again at its next pipeline.
func (s *Server) rearmIdle() {
	idle := s.conf.idle.Load()
	at := time.Time{}
	if idle > 0 {
		at = time.Now().Add(time.Duration(idle + idle/8))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return // Shutdown's deadlines stay
	}
	for c := range s.clients {
		_ = c.nc.SetDeadline(at)
	}
}

// shutdownWrite is how long a client may take to read the replies it is
// owed once the server shuts down.
const shutdownWrite = 5 * time.Second

// interrupt ends a blocked or next read of c at once, and bounds its
// pending write (called under s.mu by Shutdown); the commands already
// read still run and are answered.
func (c *client) interrupt() {
	_ = c.nc.SetReadDeadline(time.Unix(1, 0))
	_ = c.nc.SetWriteDeadline(time.Now().Add(shutdownWrite))
}

// drop closes c's connection and forgets it.
func (s *Server) drop(c *client) {
	_ = c.nc.Close()
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
}

// errProtocol wraps what the guard's framing rejected (conn_guard.go).
//
//lint:ignore ST1005 Redis's exact reply text ("ERR Protocol error: ...")
var errProtocol = errors.New("Protocol error")

// fail answers a protocol error or an oversized request with an error
// reply, as Redis does before closing; other read errors close quietly.
func (c *client) fail(err error) {
	var msg string
	switch {
	case errors.Is(err, errProtocol):
		msg = "ERR " + err.Error()
	case errors.Is(err, ErrRequestTooLarge):
		msg = fmt.Sprintf("ERR Protocol error: request larger than %d bytes", c.s.cfg.MaxRequest)
	default:
		return
	}
	c.s.protoErrs.Add(1)
	c.s.obs.errs.Add(msg, 1)
	c.w.WriteError(msg)
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	_ = c.w.Flush()
}
