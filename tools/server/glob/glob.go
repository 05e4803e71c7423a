// Package glob matches glob patterns as Redis does (stringmatchlen in
// Redis 7.0's util.c), for the server's KEYS, SCAN MATCH, CONFIG GET and
// ACL key patterns (package acl):
//
//	glob   matches
//	*      any bytes, none included
//	?      one byte
//	[abc]  one byte of the class; [^abc] one byte outside it; a-z a range
//	       (its ends in either order, compared as C's signed char); \x
//	       inside a class is x; a class left open at the pattern's end
//	       ends there
//	\x     the byte x (a '\' that ends the pattern is itself)
//
// Pattern and subject are byte strings (no UTF-8); nocase compares ASCII
// letters in any case (CONFIG GET). No library matches these rules
// exactly: tidwall/match has no classes, path.Match refuses malformed
// patterns and stops '*' at '/', gobwas/glob reads [!...] and {a,b}.
// A pure function: no state, safe for concurrent use.
package glob

// Match reports whether subject matches pattern by Redis's rules; nocase
// compares ASCII letters in any case.
func Match(pattern, subject string, nocase bool) bool {
	g := glob{nocase: nocase}
	return g.match(pattern, subject)
}

// glob is one match: its case rule, and whether a '*' has already found
// that the rest of the pattern matches no suffix of the subject, in
// which case no earlier '*' can help either (Redis's skipLongerMatches,
// which keeps "a*a*a*...b" from taking exponential time).
type glob struct {
	nocase  bool
	hopless bool
}

// at returns p[i], or 0 past its end (Redis reads its patterns as C
// strings: the byte after the last is NUL).
func at(p string, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

// match matches p against s from their starts.
func (g *glob) match(p, s string) bool {
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			return g.star(p, s)
		case '?':
			s = s[1:]
		case '[':
			var ok bool
			if p, ok = g.class(p[1:], s[0]); !ok {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if !g.same(p[0], s[0]) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
		}
	}
	return len(p) == 0 && len(s) == 0
}

// star matches p, which starts with '*', against s (not empty): the rest
// of the pattern against each suffix of s, shortest skip first.
func (g *glob) star(p, s string) bool {
	for at(p, 1) == '*' {
		p = p[1:]
	}
	if len(p) == 1 {
		return true
	}
	for ; len(s) > 0; s = s[1:] {
		if g.match(p[1:], s) {
			return true
		}
		if g.hopless {
			return false
		}
	}
	g.hopless = true
	return false
}

// class matches the byte c against the class that p starts (just after
// its '['), and returns the pattern from the class's last byte on (its
// ']', or the last byte of an unclosed class) and whether c matched.
func (g *glob) class(p string, c byte) (string, bool) {
	not := at(p, 0) == '^'
	if not {
		p = p[1:]
	}
	match := false
	for {
		switch {
		case at(p, 0) == '\\' && len(p) >= 2:
			p = p[1:]
			match = match || p[0] == c
		case at(p, 0) == ']':
			return p, match != not
		case len(p) == 0:
			// Redis steps back onto the class's last byte, which the
			// caller then steps over.
			return " ", match != not
		case len(p) >= 3 && p[1] == '-':
			match = match || g.inRange(p[0], p[2], c)
			p = p[2:]
		default:
			match = match || g.same(p[0], c)
		}
		p = p[1:]
	}
}

// inRange reports whether c lies between the range ends a and b as
// Redis compares them: as C's signed char, the ends put in order, then
// (nocase) each through glibc's tolower, which also maps a negative
// char to its unsigned value, so [X-a] and [\xe8-\x7f] match nothing
// then.
func (g *glob) inRange(a, b, c byte) bool {
	lo, hi, v := int(int8(a)), int(int8(b)), int(int8(c))
	if lo > hi {
		lo, hi = hi, lo
	}
	if g.nocase {
		lo, hi, v = ctolower(lo), ctolower(hi), ctolower(v)
	}
	return lo <= v && v <= hi
}

// ctolower is glibc's tolower in the C locale of a signed char's value
// (-1, '\xff', is EOF and stays -1).
func ctolower(x int) int {
	if x < -1 {
		return x + 256
	}
	if x < 0 {
		return x
	}
	return int(lower(byte(x)))
}

// same compares two bytes, in any ASCII case with nocase.
func (g *glob) same(a, b byte) bool {
	if g.nocase {
		return lower(a) == lower(b)
	}
	return a == b
}

// lower is C's tolower in the C locale.
func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
