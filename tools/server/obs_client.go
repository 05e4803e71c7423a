package server

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// clientStat is what other connections' CLIENT LIST and INFO read of a
// client while it runs: set by its own goroutine, read atomically.
type clientStat struct {
	fd      int
	created int64                   // observer time (ns) of the connection
	used    atomic.Int64            // observer time of its latest command
	last    atomic.Pointer[command] // its latest command, once its pipeline ran
	name    atomic.Pointer[string]  // CLIENT SETNAME's
	multi   atomic.Int32            // commands queued in MULTI; -1 outside
	flags   atomic.Pointer[string]  // Redis's flags: N, x (MULTI), r (READONLY)
	resp    atomic.Int32            // its protocol: 2, or 3 after HELLO 3
}

var normalFlags = "N"

// init sets up the stat of a new connection nc at observer time now.
func (st *clientStat) init(nc net.Conn, now int64) {
	st.fd, st.created = connFD(nc), now
	st.used.Store(now)
	st.multi.Store(-1)
	st.flags.Store(&normalFlags)
	st.resp.Store(2)
}

// connFD returns the descriptor of a TCP (or TLS over TCP) connection,
// -1 for others.
func connFD(nc net.Conn) int {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	_ = raw.Control(func(d uintptr) { fd = int(d) })
	return fd
}

// remoteAddr is the client's address, "" without a connection (tests
// that drive the front directly).
func (c *client) remoteAddr() string {
	if c.nc == nil {
		return ""
	}
	return c.nc.RemoteAddr().String()
}

// setResp3 switches c to RESP3 replies, or back to RESP2 (HELLO,
// RESET), and publishes its protocol to CLIENT LIST.
func (c *client) setResp3(on bool) {
	c.resp3 = on
	resp := int32(2)
	if on {
		resp = 3
	}
	c.stat.resp.Store(resp)
}

// setName sets the client's name (CLIENT SETNAME, HELLO SETNAME, "" at
// RESET).
func (c *client) setName(name string) {
	c.name = name
	c.stat.name.Store(&name)
}

func (st *clientStat) getName() string {
	if p := st.name.Load(); p != nil {
		return *p
	}
	return ""
}

// afterPipeline publishes what CLIENT LIST shows of c's state once a
// pipeline ran: its last use, transaction and flags.
func (c *client) afterPipeline() {
	c.stat.used.Store(c.clock)
	if c.lastCmd != c.stat.last.Load() {
		c.stat.last.Store(c.lastCmd)
	}
	f := &normalFlags
	switch {
	case c.tx.on:
		c.stat.multi.Store(int32(len(c.tx.queue)))
		f = &txFlags
	case c.readonly:
		c.stat.multi.Store(-1)
		f = &readonlyFlags
	default:
		c.stat.multi.Store(-1)
	}
	if c.stat.flags.Load() != f {
		c.stat.flags.Store(f)
	}
}

var txFlags, readonlyFlags = "x", "r"

// line is c's CLIENT LIST line in Redis 7.0's field order, as client
// caller sees it; buffers this server does not keep (query, output,
// argv memory) read 0.
func (c *client) line(caller *client) string {
	st := &c.stat
	now := c.s.obs.now()
	cmd := "NULL"
	last := st.last.Load()
	if c == caller {
		last = c.lastCmd // its command running now
	}
	if last != nil {
		cmd = last.name
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=0 sub=0 psub=0 ssub=0 multi=%d ",
		c.id, c.remoteAddr(), c.nc.LocalAddr(), st.fd, st.getName(), (now-st.created)/1e9, (now-st.used.Load())/1e9,
		*st.flags.Load(), st.multi.Load())
	fmt.Fprintf(&sb, "qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=%s redir=-1 resp=%d\n",
		cmd, c.user.Load().Name(), st.resp.Load())
	return sb.String()
}

// clientList answers CLIENT LIST [TYPE normal|master|replica|pubsub]
// [ID id...]: one line per client, by id.
func clientList(c *client, args [][]byte) {
	var ids map[int64]bool
	normal := true
	for i := 2; i < len(args); i++ {
		switch {
		case eq(args[i], "TYPE") && i+1 < len(args):
			t := strings.ToLower(string(args[i+1]))
			if !knownClientType(t) {
				c.w.WriteError("ERR Unknown client type '" + string(clip(args[i+1])) + "'")
				return
			}
			normal = t == "normal"
			i++
		case eq(args[i], "ID") && i+1 < len(args):
			ids = map[int64]bool{}
			for i++; i < len(args); i++ {
				id, ok := parseInt(args[i])
				if !ok || id <= 0 {
					c.w.WriteError("ERR Invalid client ID")
					return
				}
				ids[id] = true
			}
		default:
			c.w.WriteError(msgSyntax)
			return
		}
	}
	var sb strings.Builder
	for _, o := range c.s.clientsByID() {
		if normal && (ids == nil || ids[o.id]) {
			sb.WriteString(o.line(c))
		}
	}
	c.writeVerbatim(sb.String())
}

func knownClientType(t string) bool {
	return t == "normal" || t == "master" || t == "replica" || t == "slave" || t == "pubsub"
}

// clientsByID returns the connected clients in id order.
func (s *Server) clientsByID() []*client {
	s.mu.Lock()
	out := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		out = append(out, c)
	}
	s.mu.Unlock()
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// clientKill answers CLIENT KILL addr (OK, or an error when no client
// has that address) and CLIENT KILL with filters (ID, ADDR, LADDR, USER,
// SKIPME, TYPE; the number of clients killed). A killed client's
// connection is closed; the calling client's after its reply.
func clientKill(c *client, args [][]byte) {
	if len(args) == 3 {
		addr := string(args[2])
		if n := c.s.kill(c, func(o *client) bool { return o.remoteAddr() == addr }, false); n == 0 {
			c.w.WriteError("ERR No such client")
		} else {
			c.w.WriteString("OK")
		}
		return
	}
	match, skipMe, msg := killFilter(c, args[2:])
	if msg != "" {
		c.w.WriteError(msg)
		return
	}
	c.w.WriteInt(c.s.kill(c, match, skipMe))
}

// killFilter parses CLIENT KILL's filters into a predicate.
func killFilter(c *client, args [][]byte) (match func(*client) bool, skipMe bool, msg string) {
	if len(args)%2 != 0 {
		return nil, false, msgSyntax
	}
	var tests []func(*client) bool
	skipMe = true
	for i := 0; i < len(args); i += 2 {
		opt, v := args[i], string(args[i+1])
		switch {
		case eq(opt, "ID"):
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return nil, false, "ERR client-id should be greater than 0"
			}
			tests = append(tests, func(o *client) bool { return o.id == id })
		case eq(opt, "ADDR"):
			tests = append(tests, func(o *client) bool { return o.remoteAddr() == v })
		case eq(opt, "LADDR"):
			tests = append(tests, func(o *client) bool { return o.nc.LocalAddr().String() == v })
		case eq(opt, "USER"):
			if c.s.acl.Get(v) == nil {
				return nil, false, "ERR No such user '" + v + "'"
			}
			tests = append(tests, func(o *client) bool { return o.user.Load().Name() == v })
		case eq(opt, "TYPE"):
			t := strings.ToLower(v)
			if !knownClientType(t) {
				return nil, false, "ERR Unknown client type '" + v + "'"
			}
			tests = append(tests, func(*client) bool { return t == "normal" })
		case eq(opt, "SKIPME"):
			switch {
			case strings.EqualFold(v, "yes"):
				skipMe = true
			case strings.EqualFold(v, "no"):
				skipMe = false
			default:
				return nil, false, msgSyntax
			}
		default:
			return nil, false, msgSyntax
		}
	}
	return func(o *client) bool {
		for _, t := range tests {
			if !t(o) {
				return false
			}
		}
		return true
	}, skipMe, ""
}

// kill closes the connections of the clients match selects (c itself
// after its reply, unless skipMe) and returns how many.
func (s *Server) kill(c *client, match func(*client) bool, skipMe bool) int {
	n := 0
	for _, o := range s.clientsByID() {
		if !match(o) || (skipMe && o == c) {
			continue
		}
		n++
		if o == c {
			c.quit = true
		} else {
			_ = o.nc.Close()
		}
	}
	return n
}
