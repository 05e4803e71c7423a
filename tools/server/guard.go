package server

import (
	"fmt"
	"io"
	"strconv"
)

// guard watches the bytes a client sends before redcon's reader parses
// them, and fails the read at the first array or bulk header that Redis
// itself refuses: redcon would otherwise loop over an array count of
// 2^61 (minutes of CPU), index past its buffer for a bulk length near
// 2^63 (a panic), or buffer up to MaxRequest for a 2^40 bulk length. It
// frames RESP only as far as needed to find those headers; inline
// commands pass through, bounded by the request-size limit. It also
// counts the bytes of the current request (reset by reset).
type guard struct {
	r       io.Reader
	max     int // most bytes of one request, and of one bulk string
	n       int // bytes read since reset
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

func (g *guard) Read(p []byte) (int, error) {
	if g.failErr != nil {
		return 0, g.failErr
	}
	if g.n > g.max {
		return 0, ErrRequestTooLarge
	}
	n, err := g.r.Read(p)
	g.n += n
	if ferr := g.scan(p[:n]); ferr != nil {
		g.failErr = ferr
		return 0, ferr
	}
	return n, err
}

func (g *guard) reset() { g.n = 0 }

// scan advances the framing state over b.
func (g *guard) scan(b []byte) error {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch g.state {
		case gStart:
			if c == '*' {
				g.state, g.line = gCount, g.line[:0]
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
					return g.headerErr()
				}
				continue
			}
			if err := g.header(); err != nil {
				return err
			}
		case gBulkHead:
			if c != '$' {
				return fmt.Errorf("%w: expected '$', got '%c'", errProtocol, c)
			}
			g.state, g.line = gBulkLen, g.line[:0]
		case gPayload:
			step := min(g.skip, int64(len(b)-i))
			g.skip -= step
			i += int(step) - 1
			if g.skip == 0 {
				g.endBulk()
			}
		}
	}
	return nil
}

// header handles a complete "*N" or "$N" line (g.line, without LF).
func (g *guard) header() error {
	line := g.line
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	v, err := strconv.ParseInt(string(line), 10, 64)
	if err != nil {
		return g.headerErr()
	}
	if g.state == gCount {
		switch {
		case v > maxArgs:
			return g.headerErr()
		case v <= 0: // redcon answers these itself
			g.state = gStart
		default:
			g.left, g.state = v, gBulkHead
		}
		return nil
	}
	if v < 0 || v > int64(g.max) {
		return g.headerErr()
	}
	g.skip, g.state = v+2, gPayload
	return nil
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
