package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// Redis's expiry commands on whole keys: EXPIRE, PEXPIRE, EXPIREAT,
// PEXPIREAT (with Redis 7.0's NX, XX, GT and LT), TTL, PTTL, PERSIST,
// EXPIRETIME and PEXPIRETIME, with redis-server 7.0's replies (its
// expire.c). The expiries are the store's (store.Expiries; their
// removal: store/reap.go). Through the replication log and the journal
// a relative expiry is recorded as PEXPIREAT with the absolute time
// (expireRecord), as Redis propagates it, so every node and every
// replay expires the key at the same time.

// Expiry options of EXPIRE and its family (Redis's EXPIRE_NX...).
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// EXPIRE key seconds [NX|XX|GT|LT]: 1 if the expiry was set (a time
// already past removes the key), 0 when the key is missing or an option
// refused it.
func expire(c *client, args [][]byte) { expireGeneric(c, args, c.s.nowMs(), 1000) }

// PEXPIRE key milliseconds [NX|XX|GT|LT]: EXPIRE in milliseconds.
func pexpire(c *client, args [][]byte) { expireGeneric(c, args, c.s.nowMs(), 1) }

// EXPIREAT key unix-time-seconds [NX|XX|GT|LT]: EXPIRE at a Unix time.
func expireAt(c *client, args [][]byte) { expireGeneric(c, args, 0, 1000) }

// PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT]: EXPIREAT in
// milliseconds.
func pexpireAt(c *client, args [][]byte) { expireGeneric(c, args, 0, 1) }

// nowMs is the server's wall clock (Config.Now) in Unix ms.
func (s *Server) nowMs() int64 { return s.cfg.Now().UnixMilli() }

// expireGeneric is Redis 7.0's expireGenericCommand: the options, then
// the time (an integer, times unit ms, plus base, without overflow),
// then the key.
func expireGeneric(c *client, args [][]byte, base, unit int64) {
	flags, msg := expireFlags(args[3:])
	if msg != "" {
		c.w.WriteError(msg)
		return
	}
	at, msg := expireTime(args, base, unit)
	if msg != "" {
		c.w.WriteError(msg)
		return
	}
	set, err := c.s.store.SetExpiry(args[1], at, func(cur int64, has bool) bool { return expireAllowed(flags, at, cur, has) })
	switch {
	case err != nil && !absent(err):
		c.replyErr(err)
	case set:
		c.w.WriteInt(1)
	default:
		c.w.WriteInt(0)
	}
}

// expireTime returns the absolute expiry in Unix ms of args[2], in
// units of unit ms after base ms, or Redis's error.
func expireTime(args [][]byte, base, unit int64) (int64, string) {
	when, ok := parseInt(args[2])
	if !ok {
		return 0, msgNotInteger
	}
	if when > math.MaxInt64/unit || when < math.MinInt64/unit || when*unit > math.MaxInt64-base {
		return 0, fmt.Sprintf("ERR invalid expire time in '%s' command", strings.ToLower(string(args[0])))
	}
	return when*unit + base, ""
}

// expireFlags parses EXPIRE's options as Redis 7.0's
// parseExtendedExpireArgumentsOrReply, or returns its error.
func expireFlags(opts [][]byte) (int, string) {
	flags := 0
	for _, o := range opts {
		switch {
		case eq(o, "NX"):
			flags |= expireNX
		case eq(o, "XX"):
			flags |= expireXX
		case eq(o, "GT"):
			flags |= expireGT
		case eq(o, "LT"):
			flags |= expireLT
		default:
			return 0, fmt.Sprintf("ERR Unsupported option %s", o)
		}
	}
	switch {
	case flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0:
		return 0, "ERR NX and XX, GT or LT options at the same time are not compatible"
	case flags&expireGT != 0 && flags&expireLT != 0:
		return 0, "ERR GT and LT options at the same time are not compatible"
	}
	return flags, ""
}

// expireAllowed reports whether flags let the expiry at replace cur
// (has false: none, an infinite TTL for GT and LT), as Redis 7.0 does.
func expireAllowed(flags int, at, cur int64, has bool) bool {
	switch {
	case flags&expireNX != 0 && has,
		flags&expireXX != 0 && !has,
		flags&expireGT != 0 && (!has || at <= cur),
		flags&expireLT != 0 && has && at >= cur:
		return false
	}
	return true
}

// TTL key: the seconds left (rounded), -1 without expiry, -2 missing.
func ttl(c *client, args [][]byte) { ttlGeneric(c, args[1], false, false) }

// PTTL key: TTL in milliseconds.
func pttl(c *client, args [][]byte) { ttlGeneric(c, args[1], true, false) }

// EXPIRETIME key: the expiry as a Unix time in seconds, -1, -2.
func expireTimeCmd(c *client, args [][]byte) { ttlGeneric(c, args[1], false, true) }

// PEXPIRETIME key: EXPIRETIME in milliseconds.
func pexpireTime(c *client, args [][]byte) { ttlGeneric(c, args[1], true, true) }

// ttlGeneric is Redis 7.0's ttlGenericCommand: the time left (abs: the
// expiry itself), in ms or in seconds rounded to the nearest.
func ttlGeneric(c *client, key []byte, ms, abs bool) {
	at, has, ok, err := c.s.store.Expiry(key)
	switch {
	case err != nil && !absent(err):
		c.replyErr(err)
		return
	case !ok:
		c.w.WriteInt(-2)
		return
	case !has:
		c.w.WriteInt(-1)
		return
	}
	if !abs {
		at = max(at-c.s.nowMs(), 0)
	}
	if !ms {
		at = (at + 500) / 1000
	}
	c.w.WriteInt64(at)
}

// PERSIST key: 1 if the key's expiry was removed, 0 when it had none or
// is missing.
func persist(c *client, args [][]byte) {
	ok, err := c.s.store.Persist(args[1])
	switch {
	case err != nil && !absent(err):
		c.replyErr(err)
	case ok:
		c.w.WriteInt(1)
	default:
		c.w.WriteInt(0)
	}
}

// expireRecord is the record of EXPIRE, PEXPIRE and EXPIREAT for the
// replication log and the journal (name: the command's): PEXPIREAT with the absolute time
// (now: the Unix ms the command ran at) and the same options; ok false
// for another command, or a time EXPIRE refuses (recorded as sent, it
// fails alike when applied).
func expireRecord(name string, args [][]byte, now func() int64) (rec replication.Record, ok bool) {
	var base, unit int64
	switch name {
	case "expire":
		base, unit = now(), 1000
	case "pexpire":
		base, unit = now(), 1
	case "expireat":
		base, unit = 0, 1000
	default:
		return rec, false
	}
	at, msg := expireTime(args, base, unit)
	if msg != "" {
		return rec, false
	}
	fields := append([][]byte{[]byte("PEXPIREAT"), args[1], []byte(strconv.FormatInt(at, 10))}, args[3:]...)
	return replication.Record{Op: replication.OpCommand, Fields: copyArgs(fields)}, true
}
