package acl

import (
	"encoding/binary"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/server/glob"
)

// keyPattern is one of a user's key patterns (~pattern), compiled when
// the rule is applied so that the check of a command compares bytes:
// a pattern with no glob character is the key itself, one whose only
// glob character is a final '*' (seen:*) a prefix; any other is matched
// by Redis's glob rules (glob.Match), as KEYS and SCAN MATCH match.
type keyPattern struct {
	pat    string // as the rule gave it
	prefix string // the literal part before a final '*' (kind prefixKey)
	kind   keyKind
	// word and mask hold a prefix of 1 to 8 bytes as the first 8 bytes
	// of a key are compared with it (little-endian); mask 0 otherwise.
	word, mask uint64
}

type keyKind uint8

const (
	exactKey  keyKind = iota // no glob character: the key itself
	prefixKey                // a literal prefix and a final '*'
	globKey                  // anything else: glob.Match
)

// globChars are the characters Redis's glob rules treat specially.
const globChars = "*?[\\"

// compileKeyPattern returns pat compiled.
func compileKeyPattern(pat string) keyPattern {
	if !strings.ContainsAny(pat, globChars) {
		return keyPattern{pat: pat, kind: exactKey}
	}
	if prefix, ok := strings.CutSuffix(pat, "*"); ok && !strings.ContainsAny(prefix, globChars) {
		k := keyPattern{pat: pat, prefix: prefix, kind: prefixKey}
		if len(prefix) >= 1 && len(prefix) <= 8 {
			var w [8]byte
			copy(w[:], prefix)
			k.word, k.mask = binary.LittleEndian.Uint64(w[:]), ^uint64(0)>>(64-8*len(prefix))
		}
		return k
	}
	return keyPattern{pat: pat, kind: globKey}
}

// matches reports whether key matches the pattern; it allocates nothing
// for exact and prefix patterns.
func (k *keyPattern) matches(key []byte) bool {
	switch k.kind {
	case prefixKey:
		return len(key) >= len(k.prefix) && string(key[:len(k.prefix)]) == k.prefix
	case exactKey:
		return string(key) == k.pat
	}
	return glob.Match(k.pat, string(key), false)
}

// keyAllowed reports whether key matches one of r's key patterns. A
// prefix of at most 8 bytes is compared with the key as one word
// (wordMatches).
func (r *Rules) keyAllowed(key []byte) bool {
	for i := range r.keys {
		k := &r.keys[i]
		if k.mask != 0 {
			if k.wordMatches(key) {
				return true
			}
		} else if k.matches(key) {
			return true
		}
	}
	return false
}

// wordMatches reports whether key begins with k's prefix of 1 to 8
// bytes (mask != 0), comparing one word of the key under the mask: no
// loop, no byte comparison. A key of 8 bytes or more is loaded inline;
// a shorter one is read within its length by shortWord (a server's
// connection may give arguments with no room past them).
func (k *keyPattern) wordMatches(key []byte) bool {
	if len(key) >= 8 { // at least the prefix's length
		return binary.LittleEndian.Uint64(key)&k.mask == k.word
	}
	return k.shortMatches(key)
}

// shortMatches is wordMatches for a key of fewer than 8 bytes.
func (k *keyPattern) shortMatches(key []byte) bool {
	return len(key) >= len(k.prefix) && shortWord(key)&k.mask == k.word
}

// shortWord returns a key of fewer than 8 bytes as the low bytes of a
// little-endian word, the others 0: two overlapping 4-byte loads for 4
// to 7 bytes, the first, middle and last byte for 1 to 3.
func shortWord(key []byte) uint64 {
	n := len(key)
	switch {
	case n >= 4:
		lo, hi := uint64(binary.LittleEndian.Uint32(key)), uint64(binary.LittleEndian.Uint32(key[n-4:]))
		return lo | hi<<(8*(n-4))
	case n > 0:
		return uint64(key[0]) | uint64(key[n/2])<<(8*(n/2)) | uint64(key[n-1])<<(8*(n-1))
	}
	return 0
}

// keyPatterns returns r's key patterns as the rules gave them.
func (r *Rules) keyPatterns() []string {
	out := make([]string, len(r.keys))
	for i, k := range r.keys {
		out[i] = k.pat
	}
	return out
}
