package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"
)

// client is one connection and its session state.
type client struct {
	s      *Server
	nc     net.Conn
	in     *guard
	rd     *redcon.Reader
	w      *redcon.Writer
	id     int64
	authed bool                 // AUTH succeeded, or the default user needs none
	user   atomic.Pointer[user] // the ACL user it runs as (acl.go)
	// readonly: READONLY was sent (cluster mode): a replica serves this
	// connection's reads of its primary's slots; READWRITE clears it.
	readonly bool
	name     string
	quit     bool
	resp3    bool // HELLO 3 was sent: replies in RESP3 (conn_resp3.go)
	tx       tx   // MULTI ... EXEC (generic_multi.go)

	present []bool // answers of batch calls, reused

	// applying marks the client running the log's records on this node
	// (replica_jetstream_apply.go): its writes are not published again.
	applying bool
	// js is the connection's replication state (replica_jetstream_write.go).
	js   jsConn
	stat clientStat
	// lastCmd is the command last looked up, as Redis's lastcmd (nil for
	// an unknown one; dispatch.go); clock the observer time its run
	// started from (obs_stats.go).
	lastCmd *command
	clock   int64
}

func newClient(s *Server, nc net.Conn) *client {
	in := &guard{r: nc, max: s.cfg.MaxRequest}
	c := &client{s: s, nc: nc, in: in, rd: redcon.NewReader(in), w: redcon.NewWriter(nc),
		id: s.nextID.Add(1), authed: s.acl.open()}
	c.user.Store(s.acl.get("default"))
	c.stat.init(nc, s.obs.now())
	return c
}

// serveClient reads pipelines of commands and answers them until the
// client quits, fails, idles out or the server shuts down.
func (s *Server) serveClient(c *client) {
	defer s.handlers.Done()
	defer s.drop(c)
	for {
		if !s.armDeadline(c) {
			return
		}
		cmds, err := readPipeline(c.rd)
		if err != nil {
			c.fail(err)
			return
		}
		c.in.reset()
		s.execPipeline(c, cmds)
		s.armWrite(c)
		if err := c.w.Flush(); err != nil || c.quit {
			return
		}
	}
}

// armDeadline sets the idle deadline of the next read, or reports false
// once the server is shutting down.
func (s *Server) armDeadline(c *client) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.cfg.ClientIdle > 0 {
		_ = c.nc.SetReadDeadline(time.Now().Add(s.cfg.ClientIdle))
	} else {
		_ = c.nc.SetReadDeadline(time.Time{})
	}
	return true
}

// shutdownWrite is how long a client may take to read the replies it is
// owed once the server shuts down.
const shutdownWrite = 5 * time.Second

// armWrite sets the deadline of writing the replies: ClientIdle (a client
// that stops reading is dropped like an idle one), shutdownWrite once the
// server is shutting down.
func (s *Server) armWrite(c *client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		_ = c.nc.SetWriteDeadline(time.Now().Add(shutdownWrite))
	case s.cfg.ClientIdle > 0:
		_ = c.nc.SetWriteDeadline(time.Now().Add(s.cfg.ClientIdle))
	}
}

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

// errProtocol wraps what redcon's parser rejected.
//
//lint:ignore ST1005 Redis's exact reply text ("ERR Protocol error: ...")
var errProtocol = errors.New("Protocol error")

// readPipeline returns the next commands the client sent, all complete
// commands already received. A panic in the parser (redcon indexes past
// its buffer for a bulk length near 2^63) is a protocol error.
func readPipeline(rd *redcon.Reader) (cmds []redcon.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			cmds, err = nil, fmt.Errorf("%w: invalid bulk length", errProtocol)
		}
	}()
	cmds, err = rd.ReadCommands()
	if err != nil && !isNetErr(err) && !errors.Is(err, errProtocol) {
		err = fmt.Errorf("%w: %s", errProtocol, strings.TrimPrefix(err.Error(), "Protocol error: "))
	}
	return cmds, err
}

// isNetErr reports whether err is the connection's (closed, reset,
// deadline, end of input) rather than the parser's.
func isNetErr(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, ErrRequestTooLarge) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

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
	c.s.obs.errs.add(msg, 1)
	c.w.WriteError(msg)
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	_ = c.w.Flush()
}
