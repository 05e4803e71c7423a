package server

import (
	"fmt"
	"io"
)

// guard watches the bytes a client sends before redcon's reader parses
// them, and fails the read at the first array or bulk header that Redis
// itself refuses: redcon would otherwise loop over an array count of
// 2^61 (minutes of CPU), index past its buffer for a bulk length near
// 2^63 (a panic), or buffer up to MaxRequest for a 2^40 bulk length. It
// reads header numbers as Redis does (parseInt: no '+', no leading zero,
// no "-0"), and drops the array headers that Redis ignores ("*0\r\n",
// "*-1\r\n", any count <= 0), which redcon would refuse: an unfinished
// array header is withheld from the reader until its line ends. It
// frames RESP only as far as needed to find those headers; inline
// commands pass through, bounded by the request-size limit. It also
// counts the bytes of the current request (reset by reset).
type guard struct {
	r       io.Reader
	max     int // most bytes of one request, and of one bulk string
	n       int // bytes read since reset, less the array headers dropped
	state   guardState
	line    []byte // header line being read
	left    int64  // bulk strings left in the array
	skip    int64  // bytes of bulk payload (and CRLF) left to pass
	failErr error
}

type guardState uint8

const (
	gStart    guardState = iota // at the start of a command
	gInline                     // in an inline command, until LF
	gCount                      // in an array header "*N\r\n"
	gBulkHead                   // expecting '$'
	gBulkLen                    // in a bulk header "$N\r\n"
	gPayload                    // passing a bulk payload and its CRLF
)

// maxArgs is Redis's limit on the elements of a request array.
const maxArgs = 1024 * 1024

// maxHeader is the longest header line accepted ("*" or "$", a sign,
// 19 digits, CR).
const maxHeader = 24

// Read reads the client's next bytes into p, less the array headers
// dropped; it returns only once it has bytes to give or an error. An
// array header left unfinished by the last read (withheld, in g.line) is
// given back at the start of p, so p must be longer than maxHeader+1
// bytes (redcon reads through a 4096-byte bufio.Reader).
func (g *guard) Read(p []byte) (int, error) {
	for {
		if g.failErr != nil {
			return 0, g.failErr
		}
		if g.n > g.max {
			return 0, ErrRequestTooLarge
		}
		k := 0
		if g.state == gCount {
			if len(p) <= 1+len(g.line) {
				return 0, io.ErrShortBuffer
			}
			p[0] = '*'
			k = 1 + copy(p[1:], g.line)
		}
		n, err := g.r.Read(p[k:])
		g.n += n
		w, ferr := g.scan(p, k, k+n)
		if ferr != nil {
			g.failErr = ferr
			return 0, ferr
		}
		if w > 0 || err != nil {
			return w, err
		}
	}
}

func (g *guard) reset() { g.n = 0 }

// scan advances the framing state over p[k:end] and moves the bytes the
// reader is to see down to p[:w]: it leaves out the array headers Redis
// ignores, and an array header not finished by end (p[:k] is such a
// header, given back from the last read).
func (g *guard) scan(p []byte, k, end int) (w int, err error) {
	w, head := k, 0 // head: where the array header being read starts in p[:w]
	for i := k; i < end; i++ {
		if g.state == gPayload {
			step := int(min(g.skip, int64(end-i)))
			if w != i {
				copy(p[w:], p[i:i+step])
			}
			w, i = w+step, i+step-1
			if g.skip -= int64(step); g.skip == 0 {
				g.endBulk()
			}
			continue
		}
		c := p[i]
		p[w] = c
		w++
		switch g.state {
		case gStart:
			if c == '*' {
				g.state, g.line, head = gCount, g.line[:0], w-1
			} else if c != '\n' {
				g.state = gInline
			}
		case gInline:
			if c == '\n' {
				g.state = gStart
			}
		case gCount, gBulkLen:
			if c != '\n' {
				if g.line = append(g.line, c); len(g.line) > maxHeader {
					return 0, g.headerErr()
				}
				continue
			}
			ignored, err := g.header()
			if err != nil {
				return 0, err
			}
			if ignored { // not part of any request
				g.n, w = max(g.n-(w-head), 0), head
			}
		case gBulkHead:
			if c != '$' {
				return 0, fmt.Errorf("%w: expected '$', got '%c'", errProtocol, c)
			}
			g.state, g.line = gBulkLen, g.line[:0]
		}
	}
	if g.state == gCount {
		w = head
	}
	return w, nil
}

// header handles a complete "*N\r" or "$N\r" line (g.line, without LF),
// and reports an array header that Redis ignores (N <= 0).
func (g *guard) header() (ignored bool, err error) {
	line := g.line
	if len(line) == 0 || line[len(line)-1] != '\r' {
		return false, g.headerErr()
	}
	v, ok := parseInt(line[:len(line)-1])
	if !ok {
		return false, g.headerErr()
	}
	if g.state == gCount {
		switch {
		case v > maxArgs:
			return false, g.headerErr()
		case v <= 0:
			g.state = gStart
			return true, nil
		default:
			g.left, g.state = v, gBulkHead
		}
		return false, nil
	}
	if v < 0 || v > int64(g.max) {
		return false, g.headerErr()
	}
	g.skip, g.state = v+2, gPayload
	return false, nil
}

func (g *guard) endBulk() {
	if g.left--; g.left == 0 {
		g.state = gStart
	} else {
		g.state = gBulkHead
	}
}

func (g *guard) headerErr() error {
	if g.state == gCount {
		return fmt.Errorf("%w: invalid multibulk length", errProtocol)
	}
	return fmt.Errorf("%w: invalid bulk length", errProtocol)
}
