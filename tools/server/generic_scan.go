package server

import (
	"cmp"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/mmapbloom/mmapbloom/tools/server/glob"
)

// keyMatch is KEYS's and SCAN MATCH's test: the pattern "*" lists
// every key (the empty key included, which Redis's glob would not
// match), any other pattern is glob.Match's.
func keyMatch(pattern, key string) bool {
	return pattern == "*" || glob.Match(pattern, key, false)
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
//
// Redis's guarantee (redis.io, SCAN, "Scan guarantees"): a full
// iteration returns every key present from its start to its end,
// whatever is added or removed meanwhile. The cursor is therefore a
// position in an order that no add or removal changes: the order of the
// keys' 64-bit FNV-1a hashes (then of the keys, for equal hashes). A
// call returns the COUNT keys from the cursor on, plus the keys of the
// same hash as the last one, and the next cursor is the hash of the
// first key it did not return, or 0 at the end. So the pages cover
// consecutive ranges of hashes: a key present throughout is returned
// exactly once; one added or removed meanwhile may or may not be. The
// cursor is the same across restarts (the hash has no seed).

func scan(c *client, args [][]byte) {
	cursor, ok := parseCursor(args[1])
	if !ok {
		c.w.WriteError("ERR invalid cursor")
		return
	}
	pattern, count, typ, msg := scanOptions(args[2:])
	if msg != "" {
		c.w.WriteError(msg)
		return
	}
	keys, err := c.s.store.Keys()
	if err != nil {
		c.replyErr(err)
		return
	}
	page, next := scanPage(keys, cursor, count)
	out := page[:0]
	for _, k := range page {
		if keyMatch(pattern, k) && (typ == "" || typ == "MBbloom--") {
			out = append(out, k)
		}
	}
	c.w.WriteArray(2)
	c.w.WriteBulkString(strconv.FormatUint(next, 10))
	c.w.WriteArray(len(out))
	for _, k := range out {
		c.w.WriteBulkString(k)
	}
}

// scanOptions parses SCAN's options: the MATCH pattern (default *), the
// COUNT (default 10, at least 1) and the TYPE, or the error to answer.
func scanOptions(opts [][]byte) (pattern string, count int, typ, msg string) {
	pattern, count = "*", 10
	for i := 0; i < len(opts); i += 2 {
		if i+1 == len(opts) {
			return "", 0, "", msgSyntax
		}
		switch v := opts[i+1]; {
		case eq(opts[i], "MATCH"):
			pattern = string(v)
		case eq(opts[i], "COUNT"):
			n, ok := parseInt(v)
			if !ok || n < 1 {
				return "", 0, "", msgSyntax
			}
			count = int(min(n, int64(1)<<30))
		case eq(opts[i], "TYPE"):
			typ = string(v)
		default:
			return "", 0, "", msgSyntax
		}
	}
	return pattern, count, typ, ""
}

// scanHash is a key's position in SCAN's order.
func scanHash(key string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return h.Sum64()
}

// scanPage returns the keys whose hash is at least cursor, in hash
// order: count of them and every further key of the last one's hash;
// next is the hash of the first key after the page, 0 when none is left.
// next is never 0 otherwise: a page that starts at 0 holds every key of
// hash 0.
func scanPage(keys []string, cursor uint64, count int) (page []string, next uint64) {
	type hashed struct {
		h uint64
		k string
	}
	rest := make([]hashed, 0, len(keys))
	for _, k := range keys {
		if h := scanHash(k); h >= cursor {
			rest = append(rest, hashed{h, k})
		}
	}
	slices.SortFunc(rest, func(a, b hashed) int { return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.k, b.k)) })
	end := min(count, len(rest))
	for end > 0 && end < len(rest) && rest[end].h == rest[end-1].h {
		end++
	}
	for _, r := range rest[:end] {
		page = append(page, r.k)
	}
	if end < len(rest) {
		next = rest[end].h
	}
	return page, next
}

// parseCursor parses a SCAN cursor as Redis 7.0 does (strtoul in base
// 10, then a check that nothing follows): the argument up to its first
// NUL byte (a C string), an optional sign and decimal digits, a negative
// value taken modulo 2^64 as strtoul does, a leading space or an
// overflow refused; the empty string is 0. redis-server 7.0.15 answers
// "ERR invalid cursor" for " 1", "1 ", "0x1", "abc" and
// 18446744073709551616, and accepts "", "-1", "+5", "007".
func parseCursor(b []byte) (uint64, bool) {
	if i := slices.Index(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	switch b[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, false
	case '+', '-':
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil || b[0] == '+' || b[0] == '-' {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
