package acl

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzACLRules applies arbitrary rules (space-separated) to a user: no
// panic, and what ACL LIST shows of the user, applied to a new user,
// gives the same user back (Redis's guarantee for its descriptions).
func FuzzACLRules(f *testing.F) {
	for _, s := range []string{
		"on >secret ~seen:* -@all +@bloom -bf.loadchunk",
		"+@all -del -@dangerous allkeys", "reset nopass +acl|whoami", "#" + strings.Repeat("ab", 32),
		"<nope", "~a allkeys ~b", "&chan allchannels resetchannels", "+@read +@write -@keyspace +exists",
		"+config|get", "-@all +acl -acl|setuser", "off resetpass >a >a <a", "+", "-@", "~", "\x00",
	} {
		f.Add(s)
	}
	t := NewTestTable()
	f.Fuzz(func(tt *testing.T, rules string) {
		p := newRules(t)
		for _, r := range strings.Split(rules, " ") {
			_ = p.apply(r)
		}
		q := newRules(t)
		for _, r := range strings.Split(p.Describe(), " ") {
			require.NoError(tt, q.apply(r), "rule %q of %q", r, p.Describe())
		}
		require.Equal(tt, p.Describe(), q.Describe())
		require.Equal(tt, p.cmds, q.cmds)
		require.Equal(tt, p.on, q.on)
		require.Equal(tt, p.allKeys, q.allKeys)
		require.ElementsMatch(tt, p.keys, q.keys)
	})
}

// TestKeyPatternKinds: a pattern with no glob character is compiled to
// the key itself, one whose only glob character is a final '*' to a
// prefix (compared as one word up to 8 bytes), any other to Redis's
// glob.
func TestKeyPatternKinds(t *testing.T) {
	for _, tc := range []struct {
		pat  string
		kind keyKind
		word bool
	}{
		{"seen", exactKey, false}, {"seen*", prefixKey, true}, {"seen:urls:*", prefixKey, false},
		{"a*", prefixKey, true}, {"abcdefgh*", prefixKey, true}, {"abcdefghi*", prefixKey, false},
		{"*", prefixKey, false}, {"s?en*", globKey, false}, {"h[ae]llo:*", globKey, false}, {"a\\*", globKey, false},
	} {
		k := compileKeyPattern(tc.pat)
		assert.Equal(t, tc.kind, k.kind, tc.pat)
		assert.Equal(t, tc.word, k.mask != 0, tc.pat)
	}
}

// FuzzACLKeyWord compares the one-word check of a prefix pattern of 1
// to 8 bytes (wordMatches, keys of every length, with and without bytes
// past them in their array, which it must not read) with the byte
// comparison it stands for.
func FuzzACLKeyWord(f *testing.F) {
	for _, s := range [][3]string{{"seen", "seen", "\r\n$3"}, {"seen", "see", "n"}, {"seen", "seen:urls", ""}, {"a", "", "a"},
		{"ab", "a\x00", "b"}, {"abcdefgh", "abcdefg", "h"}, {"abc", "abd", ""}, {"\x00", "\x00", ""}, {"\xff\xff", "\xff\xfe", "\xff"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, prefix, key, tail string) {
		if len(prefix) < 1 || len(prefix) > 8 || strings.ContainsAny(prefix, globChars) {
			return
		}
		k := compileKeyPattern(prefix + "*")
		require.NotZero(t, k.mask, "%q", prefix)
		want := strings.HasPrefix(key, prefix)
		clipped, inside := slices.Clip([]byte(key)), []byte(key + tail)[:len(key)]
		require.Equal(t, want, k.wordMatches(clipped), "%q ~ %q* (no room)", key, prefix)
		require.Equal(t, want, k.wordMatches(inside), "%q ~ %q* (followed by %q)", key, prefix, tail)
		require.Equal(t, k.matches(clipped), k.wordMatches(clipped), "%q ~ %q*", key, prefix)
	})
}
