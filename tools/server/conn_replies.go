package server

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Error replies shared by several commands (RedisBloom's and Redis's
// texts where they have one).
const (
	msgNotFound   = "ERR not found"
	msgItemExists = "ERR item exists"
	msgNotInteger = "ERR value is not an integer or out of range"
	msgSyntax     = "ERR syntax error"
	// msgRateTooSmall answers a rate RedisBloom takes (any in (0, 1)) but
	// whose filter would need more than format.MaxK (64) hash functions:
	// below about 5e-20 for a fixed filter, twice that for a scalable
	// set's first layer (its rate tightened by 0.5).
	msgRateTooSmall = "ERR error rate too small: a filter has at most 64 hash functions"
)

// replyErr answers err as a Redis error line: RedisBloom's text for the
// cases it has, else "ERR " and the error with data-directory paths cut.
func (c *client) replyErr(err error) {
	c.noteApplyErr(err)
	var lim *store.LimitError
	switch {
	case errors.Is(err, ErrNotFound):
		c.w.WriteError(msgNotFound)
	case errors.Is(err, ErrKeyExists):
		c.w.WriteError(msgItemExists)
	case errors.Is(err, store.ErrNoDescriptors) || store.NoDescriptors(err):
		c.w.WriteError(store.ErrNoDescriptors.Error())
	case errors.As(err, &lim):
		c.w.WriteError("ERR " + lim.Error())
	case errors.Is(err, mmapbloom.ErrInUse):
		c.w.WriteError("ERR key is open in another process (or in a running command): not removed")
	case errors.Is(err, mmapbloom.ErrInvalidK):
		c.w.WriteError(msgRateTooSmall)
	default:
		msg := strings.ReplaceAll(err.Error(), c.s.cfg.Dir+"/", "")
		msg = strings.ReplaceAll(msg, "mmapbloom: ", "")
		c.w.WriteError("ERR " + msg)
	}
}

// noteApplyErr keeps err as the client's applyErr when the client
// applies the log's records, has none yet, and err is not a record's
// result (classify): applyCommand returns it.
func (c *client) noteApplyErr(err error) {
	if c.applying && c.applyErr == nil && classify(err) != applyResult {
		c.applyErr = err
	}
}

// parseInt parses a decimal integer as Redis's string2ll does: optional
// '-', digits, no '+', spaces or leading zeros; ok is false past the
// int64 range. It reads every request header (conn_guard.go), so it
// works on the bytes without strconv's string and generality.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || (len(digits) > 1 && digits[0] == '0') || (neg && digits[0] == '0') {
		return 0, false
	}
	var u uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}

// parseFloat parses a number as Redis's string-to-double does: no
// spaces, no NaN.
func parseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || b[0] == ' ' || b[len(b)-1] == ' ' {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil && !math.IsNaN(v)
}

// writeBools answers an array of booleans (writeBool): present[i] ==
// want.
func (c *client) writeBools(present []bool, want bool) {
	c.w.WriteArray(len(present))
	for _, p := range present {
		c.writeBool(p == want)
	}
}
