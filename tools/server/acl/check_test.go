package acl_test

import (
	"slices"
	"testing"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	noPermKeys = "NOPERM this user has no permissions to access one of the keys used as arguments"
	noPermBF   = "NOPERM this user has no permissions to run the 'bf.add' command"
)

// userWith returns a user of t (a new user, as ACL SETUSER makes it)
// with rules applied.
func userWith(t *testing.T, table *acl.Table, rules ...string) *acl.User {
	t.Helper()
	us, err := acl.NewUsers(table, "", "")
	require.NoError(t, err)
	require.NoError(t, us.SetUser("u", rules))
	return us.Get("u")
}

// id returns the id of the command name in table.
func id(t *testing.T, table *acl.Table, name string) int {
	t.Helper()
	id, ok := table.Lookup(name)
	require.True(t, ok, name)
	return id
}

// args returns a call's arguments.
func args(a ...string) [][]byte {
	out := make([][]byte, len(a))
	for i, s := range a {
		out[i] = []byte(s)
	}
	return out
}

// TestAllowed: each verdict (denied, allowed, one key, one key against a
// one-word prefix, every key) with Redis's NOPERM texts; commands that
// run before AUTH are allowed to any user.
func TestAllowed(t *testing.T) {
	table := acl.NewTestTable()
	for _, tc := range []struct {
		rules []string
		call  []string
		want  string
	}{
		{[]string{"on", "nopass"}, []string{"bf.add", "k", "x"}, noPermBF},
		{[]string{"on", "nopass"}, []string{"AUTH", "u", "pw"}, ""},
		{[]string{"+@all", "~*"}, []string{"bf.add", "k", "x"}, ""},
		{[]string{"+@all"}, []string{"ping"}, ""},
		{[]string{"+@all"}, []string{"bf.add", "k", "x"}, noPermKeys},
		{[]string{"+@all", "-bf.add", "~*"}, []string{"bf.add", "k", "x"}, noPermBF},
		{[]string{"+@bloom", "~seen:*"}, []string{"bf.add", "seen:a", "x"}, ""},
		{[]string{"+@bloom", "~seen:*"}, []string{"bf.add", "seen", "x"}, noPermKeys},
		{[]string{"+@bloom", "~seen:*", "~x"}, []string{"bf.add", "x", "x"}, ""},
		{[]string{"+@bloom", "~seen:*", "~x"}, []string{"bf.add", "y", "x"}, noPermKeys},
		{[]string{"+@keyspace", "~a*"}, []string{"del", "a1", "a2", "a3"}, ""},
		{[]string{"+@keyspace", "~a*"}, []string{"del", "a1", "b", "a3"}, noPermKeys},
		{[]string{"+@keyspace", "~a*"}, []string{"exists", "a1", "a2", "b"}, noPermKeys},
		{[]string{"+mset", "~k*"}, []string{"mset", "k1", "v", "k2", "other"}, ""},
		{[]string{"+mset", "~k*"}, []string{"mset", "k1", "v", "x2", "v"}, noPermKeys},
		{[]string{"+acl"}, []string{"acl", "whoami"}, ""},
		{[]string{"+acl", "-acl|setuser"}, []string{"acl", "setuser", "x"}, "NOPERM this user has no permissions to run the 'acl|setuser' command"},
		{[]string{"+@all", "-@dangerous", "~*"}, []string{"config", "get", "x"}, "NOPERM this user has no permissions to run the 'config|get' command"},
	} {
		u := userWith(t, table, tc.rules...)
		name := tc.call[0]
		if name == "acl" || name == "config" {
			name += "|" + tc.call[1]
		}
		assert.Equal(t, tc.want, u.Allowed(id(t, table, name), args(tc.call...)), "%v %v", tc.rules, tc.call)
	}
}

// TestAllowedAtExec: a queued command refused at EXEC gets Redis 7.0's
// "rules changed" text, with the command or the keys as the reason.
func TestAllowedAtExec(t *testing.T) {
	table := acl.NewTestTable()
	const changed = "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: "
	for _, tc := range []struct {
		rules []string
		want  string
	}{
		{[]string{"+bf.add", "~k*"}, ""},
		{[]string{"+bf.exists", "~k*"}, changed + "no permission to execute the command or subcommand"},
		{[]string{"+bf.add", "~x*"}, changed + "no permission to touch the specified keys"},
	} {
		u := userWith(t, table, tc.rules...)
		assert.Equal(t, tc.want, u.AllowedAtExec(id(t, table, "bf.add"), args("bf.add", "k1", "x")), "%v", tc.rules)
	}
}

// TestAllowedKeyPatterns: the compiled key patterns (exact, prefix,
// one-word prefix, glob) answer as Redis's glob rules do, for keys
// shorter and longer than a word, with and without bytes past them.
func TestAllowedKeyPatterns(t *testing.T) {
	table := acl.NewTestTable()
	bfAdd := id(t, table, "bf.add")
	for _, tc := range []struct {
		pat     string
		yes, no []string
	}{
		{"seen", []string{"seen"}, []string{"seen:", "see", "xseen"}},
		{"seen*", []string{"seen", "seen:a", "seen:example.com/x"}, []string{"see", "seem", "sEen:a", "xseen:aaaaaaa", ""}},
		{"seen:urls:*", []string{"seen:urls:", "seen:urls:abc"}, []string{"seen:url", "seen:urlx:abc"}},
		// Prefixes of 1 to 8 bytes against keys shorter than 8 (one word).
		{"a*", []string{"a", "ab", "abcdefg", "a\x00"}, []string{"", "b", "ba", "\x00a", "A"}},
		{"ab*", []string{"ab", "abc", "ab\x00\x00"}, []string{"a", "b", "ac", "ba", "\x00ab"}},
		{"seen:*", []string{"seen:", "seen:a", "seen:ab"}, []string{"seen", "seen;", "seex:", "Seen:"}},
		{"abcdefgh*", []string{"abcdefgh", "abcdefghi"}, []string{"abcdefg", "abcdefgx", "bcdefgh"}},
		{"s?en*", []string{"seen:a", "sxen"}, []string{"sen", "xseen"}},
		{"h[ae]llo:*", []string{"hello:a", "hallo:"}, []string{"hillo:a", "hello"}},
	} {
		// alone (a one-word prefix is checked as a word), and beside a
		// second pattern that matches nothing here
		for _, rules := range [][]string{{"+@bloom", "~" + tc.pat}, {"+@bloom", "~" + tc.pat, "~\x01none"}} {
			u := userWith(t, table, rules...)
			for _, k := range tc.yes {
				for _, key := range keySlices(k) {
					assert.Empty(t, u.Allowed(bfAdd, [][]byte{[]byte("bf.add"), key, []byte("x")}), "%q ~ %v (cap %d)", k, rules, cap(key))
				}
			}
			for _, k := range tc.no {
				for _, key := range keySlices(k) {
					assert.Equal(t, noPermKeys, u.Allowed(bfAdd, [][]byte{[]byte("bf.add"), key, []byte("x")}), "%q !~ %v (cap %d)", k, rules, cap(key))
				}
			}
		}
	}
}

// keySlices returns key as the check may see it: a slice with no room
// past it, and one inside a longer request (redcon's arguments), the
// bytes after it those of a RESP request or of the key's own
// first bytes (a wrong match would show there).
func keySlices(key string) [][]byte {
	out := [][]byte{slices.Clip([]byte(key))}
	for _, tail := range []string{"\r\n$3\r\nabc\r\n", key + key + "xxxxxxxx"} {
		req := []byte(key + tail)
		out = append(out, req[:len(key)])
	}
	return out
}

// TestAllowedAllocs: an allowed command, key patterns included,
// allocates nothing.
func TestAllowedAllocs(t *testing.T) {
	table := acl.NewTestTable()
	bfAdd := id(t, table, "bf.add")
	call := args("bf.add", "seen:urls:1", "x")
	for _, rules := range [][]string{{"+@all", "~*"}, {"+@bloom", "~seen*"}, {"+@bloom", "~seen:urls:*"}, {"+@bloom", "~s?en*"}} {
		u := userWith(t, table, rules...)
		require.Empty(t, u.Allowed(bfAdd, call))
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = u.Allowed(bfAdd, call) }), "%v", rules)
	}
}
