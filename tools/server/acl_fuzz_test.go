package server

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzACLRules applies arbitrary rules (space-separated) to a user: no
// panic, and what ACL LIST shows of the user, applied to a new user,
// gives the same user back (Redis's guarantee for its descriptions).
func FuzzACLRules(f *testing.F) {
	for _, s := range []string{
		"on >secret ~seen:* -@all +@bloom -bf.loadchunk",
		"+@all -del -@dangerous allkeys", "reset nopass +acl|whoami", "#" + strings.Repeat("ab", 32),
		"<nope", "~a allkeys ~b", "&chan allchannels resetchannels", "+@read +@write -@keyspace +keys",
		"+config|get", "-@all +acl -acl|setuser", "off resetpass >a >a <a", "+", "-@", "~", "\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rules string) {
		p := newPerms()
		for _, r := range strings.Split(rules, " ") {
			_ = p.apply(r)
		}
		q := newPerms()
		for _, r := range strings.Split(p.describe(), " ") {
			require.NoError(t, q.apply(r), "rule %q of %q", r, p.describe())
		}
		require.Equal(t, p.describe(), q.describe())
		require.Equal(t, p.cmds, q.cmds)
		require.Equal(t, p.on, q.on)
		require.Equal(t, p.allKeys, q.allKeys)
		require.ElementsMatch(t, p.keys, q.keys)
	})
}

// FuzzACLFile parses arbitrary ACL files: no panic; a file that parses
// holds valid user names only, and what ACL SAVE would write of it
// parses to the same users.
func FuzzACLFile(f *testing.F) {
	for _, s := range []string{
		"user default on >adm ~* &* +@all\n\nuser ro on >ro ~* -@all +@read\n",
		"user a\r\nuser b on nopass  ~x*\t\n", "user\n", "# comment\n", "user a on\nuser a off\n",
		"user x +@nosuch\nbad\n", "   \n\t\n", "user default off\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		users, err := parseACLFile("f", text)
		if err != nil {
			require.ErrorIs(t, err, ErrACLFile)
			return
		}
		var sb strings.Builder
		for name, p := range users {
			require.True(t, validUserName(name), "%q", name) // "" is a name, as in Redis
			sb.WriteString("user " + name + " " + p.describe() + "\n")
		}
		again, err := parseACLFile("f", []byte(sb.String()))
		require.NoError(t, err, sb.String())
		require.Len(t, again, len(users))
		for name, p := range users {
			require.Equal(t, p.describe(), again[name].describe())
		}
	})
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
