package server

import (
	"bytes"
	"fmt"
	"io"

	"github.com/tidwall/redcon"
)

// guard reads a client's requests and frames them into commands, failing
// at the first array or bulk header that Redis itself refuses (an array
// count above maxArgs, a bulk length above max: a hostile count would
// otherwise cost minutes of CPU or gigabytes of buffer). It reads header
// numbers as Redis does (parseInt: no '+', no leading zero, no "-0"),
// ignores the array headers that Redis ignores ("*0\r\n", "*-1\r\n", any
// count <= 0), and splits an inline command as Redis does
// (conn_inline.go). The project takes RESP parsing from a library where
// one will do, but redcon's Reader alone cannot face a hostile client
// (an array count of 2^61 loops for minutes, a bulk length near 2^63
// panics, one of 2^40 buffers up to the request limit), so a framer of
// this server's own had to see every byte first. This one now gives the
// commands too, instead of handing the bytes on to redcon's Reader, which
// framed them a second time through a bufio.Reader and allocated two
// slices per command (BENCHMARKS.md, "Server: CPU per pipelined
// request"): the commands it gives alias its buffer and its slices,
// reused by the next read, and it allocates nothing in steady state.
// redcon's Writer still writes the replies.
type guard struct {
	r   io.Reader
	max int // most bytes of one request, and of one bulk string

	// buf[:at] holds the requests framed (the commands given), buf[at:end]
	// the request being framed, up to pos so far.
	buf          []byte
	at, pos, end int
	late         error // a read error that came with bytes, given after them
	failErr      error // the protocol error that ends the connection

	state guardState
	mark  int   // start of the header line, inline line or bulk payload being read
	size  int   // length of the bulk payload being read
	left  int64 // bulk strings left in the array
	marks []int // start and end in buf of each bulk string of the request

	cmds []redcon.Command // the commands given, reused
	args [][]byte         // their arguments, reused
}

type guardState uint8

const (
	gStart    guardState = iota // at the start of a request
	gInline                     // in an inline command, until LF
	gCount                      // in an array header "*N\r\n"
	gBulkHead                   // expecting '$'
	gBulkLen                    // in a bulk header "$N\r\n"
	gPayload                    // in a bulk payload and its CRLF
)

// maxArgs is Redis's limit on the elements of a request array.
const maxArgs = 1024 * 1024

// maxHeader is the longest header line accepted (a sign, 19 digits, CR,
// after the "*" or "$").
const maxHeader = 24

// guardBuf is the size of a guard's buffer, grown for a larger request
// and shrunk back once it is done (redcon's reader and its bufio.Reader
// held 4 KiB each).
const guardBuf = 8 << 10

// keepSlices bounds the capacity of the reused slices (marks, args,
// cmds) kept once a pipeline is done.
const keepSlices = 4096

// errBadBulk is Redis's error for a bulk header it refuses, or a payload
// not followed by CRLF.
var errBadBulk = fmt.Errorf("%w: invalid bulk length", errProtocol)

// readPipeline returns the next commands the client sent: every complete
// command already received, at least one. Their arguments alias the
// guard's buffer and stay valid until the next call. Errors: the
// reader's, ErrRequestTooLarge once the request being read passes max
// bytes, or a protocol error (wrapping errProtocol), given after the
// commands that came before it.
func (g *guard) readPipeline() ([]redcon.Command, error) {
	g.recycle()
	for {
		if g.failErr == nil {
			g.failErr = g.frame()
		}
		switch {
		case len(g.cmds) > 0:
			return g.cmds, nil
		case g.failErr != nil:
			return nil, g.failErr
		}
		if err := g.fill(); err != nil {
			return nil, err
		}
	}
}

// recycle forgets the commands given last, keeping their slices unless
// a large request grew them.
func (g *guard) recycle() {
	clear(g.args)
	clear(g.cmds)
	g.args, g.cmds = g.args[:0], g.cmds[:0]
	if cap(g.args) > keepSlices {
		g.args = nil
	}
	if cap(g.cmds) > keepSlices {
		g.cmds = nil
	}
}

// fill reads the client's next bytes after the request being framed,
// moving that request to the start of the buffer first (the commands
// framed before it are done).
func (g *guard) fill() error {
	if err := g.late; err != nil {
		g.late = nil
		return err
	}
	if g.end-g.at > g.max {
		return ErrRequestTooLarge
	}
	g.compact()
	if g.end == len(g.buf) {
		buf := make([]byte, max(guardBuf, 2*len(g.buf)))
		copy(buf, g.buf[:g.end])
		g.buf = buf
	}
	n, err := g.r.Read(g.buf[g.end:])
	g.end += n
	if err != nil && n > 0 {
		g.late, err = err, nil
	}
	return err
}

// compact moves the request being framed to the start of the buffer,
// into a buffer of guardBuf bytes again when it was grown and is empty.
func (g *guard) compact() {
	if g.at == 0 {
		return
	}
	d := g.at
	if g.at == g.end && len(g.buf) > guardBuf {
		g.buf = nil
	} else {
		copy(g.buf, g.buf[g.at:g.end])
	}
	g.at, g.pos, g.end, g.mark = 0, g.pos-d, g.end-d, g.mark-d
	for i := range g.marks {
		g.marks[i] -= d
	}
}

// frame advances over buf[pos:end], appending each command it completes
// to g.cmds.
func (g *guard) frame() error {
	for g.pos < g.end {
		var err error
		switch g.state {
		case gStart:
			g.start()
		case gInline:
			err = g.inline()
		case gCount, gBulkLen:
			err = g.header()
		case gBulkHead:
			if c := g.buf[g.pos]; c != '$' {
				return fmt.Errorf("%w: expected '$', got '%c'", errProtocol, c)
			}
			g.pos++
			g.state, g.mark = gBulkLen, g.pos
		case gPayload:
			err = g.payload()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// start begins a request at buf[pos]: an array, a bare LF (nothing), or
// an inline command.
func (g *guard) start() {
	switch g.buf[g.pos] {
	case '*':
		g.pos++
		g.state, g.mark = gCount, g.pos
	case '\n':
		g.pos++
		g.at = g.pos
	default:
		g.state, g.mark = gInline, g.pos
	}
}

// inline frames an inline command: at its LF the line is split into a
// command (none for a blank line).
func (g *guard) inline() error {
	i := bytes.IndexByte(g.buf[g.pos:g.end], '\n')
	if i < 0 {
		g.pos = g.end
		if g.end-g.mark > maxInline {
			return errBigInline
		}
		return nil
	}
	line := g.buf[g.mark : g.pos+i]
	if len(line) > maxInline {
		return errBigInline
	}
	g.pos += i + 1
	g.state, g.at = gStart, g.pos
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	args, ok := splitArgs(line)
	if !ok {
		return errUnbalanced
	}
	if len(args) > 0 {
		g.cmds = append(g.cmds, redcon.Command{Args: args})
	}
	return nil
}

// header reads a "*N\r\n" or "$N\r\n" line once its LF has come.
func (g *guard) header() error {
	limit := min(g.end, g.mark+maxHeader+1)
	i := bytes.IndexByte(g.buf[g.pos:limit], '\n')
	if i < 0 {
		if g.end-g.mark > maxHeader {
			return g.headerErr()
		}
		g.pos = g.end
		return nil
	}
	line := g.buf[g.mark : g.pos+i]
	g.pos += i + 1
	if len(line) == 0 || line[len(line)-1] != '\r' {
		return g.headerErr()
	}
	v, ok := parseInt(line[:len(line)-1])
	if !ok {
		return g.headerErr()
	}
	if g.state == gCount {
		return g.count(v)
	}
	if v < 0 || v > int64(g.max) {
		return errBadBulk
	}
	g.state, g.mark, g.size = gPayload, g.pos, int(v)
	return nil
}

// count starts an array of v bulk strings, or ignores its header as
// Redis does when v <= 0.
func (g *guard) count(v int64) error {
	switch {
	case v > maxArgs:
		return g.headerErr()
	case v <= 0:
		g.state, g.at = gStart, g.pos
	default:
		g.state, g.left = gBulkHead, v
		if cap(g.marks) > keepSlices {
			g.marks = nil
		}
		g.marks = g.marks[:0]
	}
	return nil
}

// payload passes a bulk string once it and its CRLF have come, and
// completes the command after its last one.
func (g *guard) payload() error {
	stop := g.mark + g.size + 2
	if g.end < stop {
		g.pos = g.end
		return nil
	}
	if g.buf[stop-2] != '\r' || g.buf[stop-1] != '\n' {
		return errBadBulk
	}
	g.marks = append(g.marks, g.mark, g.mark+g.size)
	g.pos = stop
	if g.left--; g.left > 0 {
		g.state = gBulkHead
		return nil
	}
	first := len(g.args)
	for i := 0; i < len(g.marks); i += 2 {
		g.args = append(g.args, g.buf[g.marks[i]:g.marks[i+1]:g.marks[i+1]])
	}
	g.cmds = append(g.cmds, redcon.Command{Args: g.args[first:len(g.args):len(g.args)]})
	g.state, g.at = gStart, g.pos
	return nil
}

func (g *guard) headerErr() error {
	if g.state == gCount {
		return fmt.Errorf("%w: invalid multibulk length", errProtocol)
	}
	return errBadBulk
}
