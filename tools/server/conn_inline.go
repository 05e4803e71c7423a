package server

import (
	"fmt"
	"strconv"
)

// Inline commands (a line such as `SET k "a b"` instead of a RESP array),
// split as redis-server splits them (sdssplitargs in Redis 7.0's sds.c).
// The guard (conn_guard.go) splits each complete inline line into the
// command's arguments.

// maxInline is Redis's PROTO_INLINE_MAX_SIZE: the longest inline line.
const maxInline = 64 << 10

// errUnbalanced and errBigInline are Redis's inline protocol errors.
var (
	errUnbalanced = fmt.Errorf("%w: unbalanced quotes in request", errProtocol)
	errBigInline  = fmt.Errorf("%w: too big inline request", errProtocol)
)

// splitArgs splits an inline line (without its LF) into arguments:
// blanks separate them; "..." holds \xHH, \n, \r, \t, \b, \a and \c (c
// itself) escapes; '...' holds \' only; a quote may open mid-token and
// must close at a blank or the line's end. Like sdssplitargs it reads the
// line as a C string: a NUL byte outside quotes ends the line. ok is
// false for unbalanced quotes.
func splitArgs(line []byte) (args [][]byte, ok bool) {
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) || line[p] == 0 {
			return args, true
		}
		var arg []byte
		if p, arg, ok = splitArg(line, p); !ok {
			return nil, false
		}
		args = append(args, arg)
	}
}

// splitArg reads the argument starting at line[p], returning where the
// next one may start.
func splitArg(line []byte, p int) (int, []byte, bool) {
	arg := []byte{}
	for ; p < len(line); p++ {
		switch c := line[p]; c {
		case ' ', '\n', '\r', '\t', 0:
			return p, arg, true
		case '"':
			var ok bool
			if p, arg, ok = doubleQuoted(line, p+1, arg); !ok {
				return 0, nil, false
			}
		case '\'':
			var ok bool
			if p, arg, ok = singleQuoted(line, p+1, arg); !ok {
				return 0, nil, false
			}
		default:
			arg = append(arg, c)
		}
	}
	return p, arg, true
}

// doubleQuoted appends the "..." text from line[p] (after the quote) to
// arg and returns the index of the closing quote.
func doubleQuoted(line []byte, p int, arg []byte) (int, []byte, bool) {
	for ; p < len(line) && line[p] != 0; p++ {
		c := line[p]
		switch {
		case c == '\\' && p+3 < len(line) && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]):
			v, _ := strconv.ParseUint(string(line[p+2:p+4]), 16, 8)
			arg = append(arg, byte(v))
			p += 3
		case c == '\\' && p+1 < len(line) && line[p+1] != 0:
			p++
			arg = append(arg, unescapeByte(line[p]))
		case c == '"':
			return p, arg, closedAtBlank(line, p)
		default:
			arg = append(arg, c)
		}
	}
	return 0, nil, false
}

// singleQuoted appends the '...' text from line[p] (after the quote) to
// arg and returns the index of the closing quote.
func singleQuoted(line []byte, p int, arg []byte) (int, []byte, bool) {
	for ; p < len(line) && line[p] != 0; p++ {
		c := line[p]
		switch {
		case c == '\\' && p+1 < len(line) && line[p+1] == '\'':
			p++
			arg = append(arg, '\'')
		case c == '\'':
			return p, arg, closedAtBlank(line, p)
		default:
			arg = append(arg, c)
		}
	}
	return 0, nil, false
}

// closedAtBlank reports whether the closing quote at line[p] ends the
// argument: the line ends (or a NUL ends it) or a blank follows.
func closedAtBlank(line []byte, p int) bool {
	return p+1 == len(line) || line[p+1] == 0 || isSpace(line[p+1])
}

// unescapeByte is the byte a backslash escape inside "..." stands for.
func unescapeByte(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
