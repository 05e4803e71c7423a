package server

import (
	"math"
	"strconv"
)

// RESP3 reply types (the Redis protocol specification, RESP3 section),
// written on a connection that sent HELLO 3, each falling back to the
// RESP2 form redis-server 7.0 gives (networking.c: addReplyMapLen,
// addReplySetLen, addReplyNull, addReplyBool,
// addReplyVerbatim). The reply writer (conn_writer.go) writes RESP2's
// types only; these append to its buffer through WriteRaw.

// Fixed replies, shared so that a boolean costs no allocation.
var (
	respTrue     = []byte("#t\r\n")
	respFalse    = []byte("#f\r\n")
	respOne      = []byte(":1\r\n")
	respZero     = []byte(":0\r\n")
	respNull     = []byte("_\r\n")
	respNullBulk = []byte("$-1\r\n")
)

// writeHeader writes an aggregate or length header: kind, n, CRLF.
func (c *client) writeHeader(kind byte, n int) {
	var buf [24]byte
	b := append(buf[:0], kind)
	b = strconv.AppendInt(b, int64(n), 10)
	c.w.WriteRaw(append(b, '\r', '\n'))
}

// writeMapLen starts a map of n key-value pairs: RESP3's %n, RESP2's
// flat array of 2n elements.
func (c *client) writeMapLen(n int) {
	if c.resp3 {
		c.writeHeader('%', n)
	} else {
		c.w.WriteArray(2 * n)
	}
}

// writeSetLen starts a set of n elements: RESP3's ~n, RESP2's array.
func (c *client) writeSetLen(n int) {
	if c.resp3 {
		c.writeHeader('~', n)
	} else {
		c.w.WriteArray(n)
	}
}

// writeNull answers nil where Redis writes a null bulk string: RESP3's
// _, RESP2's $-1.
func (c *client) writeNull() {
	if c.resp3 {
		c.w.WriteRaw(respNull)
	} else {
		c.w.WriteRaw(respNullBulk)
	}
}

// writeBool answers a boolean as RedisBloom does: RESP3's #t or #f,
// RESP2's :1 or :0.
func (c *client) writeBool(b bool) {
	switch {
	case c.resp3 && b:
		c.w.WriteRaw(respTrue)
	case c.resp3:
		c.w.WriteRaw(respFalse)
	case b:
		c.w.WriteRaw(respOne)
	default:
		c.w.WriteRaw(respZero)
	}
}

// writeDouble answers a floating-point number: RESP3's double, RESP2's
// bulk string; the shortest decimal that reads back as v (Redis 7.2's
// fpconv_dtoa), inf and -inf for the infinities.
func (c *client) writeDouble(v float64) {
	var buf [40]byte
	b := append(buf[:0], ',')
	switch {
	case math.IsInf(v, 1):
		b = append(b, "inf"...)
	case math.IsInf(v, -1):
		b = append(b, "-inf"...)
	default:
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	if !c.resp3 {
		c.w.WriteBulk(b[1:])
		return
	}
	c.w.WriteRaw(append(b, '\r', '\n'))
}

// writeVerbatim answers text (INFO, CLUSTER INFO, CLUSTER NODES) as
// Redis does: RESP3's verbatim string of format txt, RESP2's bulk
// string.
func (c *client) writeVerbatim(text string) {
	if !c.resp3 {
		c.w.WriteBulkString(text)
		return
	}
	c.writeHeader('=', len(text)+4)
	c.w.WriteRaw([]byte("txt:" + text + "\r\n"))
}
