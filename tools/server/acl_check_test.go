package server

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestACLCompiledKeyPatterns: the compiled key patterns (exact, prefix,
// one-word prefix, glob) answer as globMatch (Redis's rules) does, for keys shorter
// and longer than a word; CONFIG, the movers and loaders are in @admin
// and @dangerous, so a user without them is refused with Redis's text.
func TestACLCompiledKeyPatterns(t *testing.T) {
	for _, tc := range []struct {
		pat  string
		yes  []string
		no   []string
		kind keyKind
	}{
		{"seen", []string{"seen"}, []string{"seen:", "see", "xseen"}, exactKey},
		{"seen*", []string{"seen", "seen:a", "seen:example.com/x"}, []string{"see", "seem", "sEen:a", "xseen:aaaaaaa", ""}, prefixKey},
		{"seen:urls:*", []string{"seen:urls:", "seen:urls:abc"}, []string{"seen:url", "seen:urlx:abc"}, prefixKey},
		// Prefixes of 1 to 8 bytes against keys shorter than 8 (one word).
		{"a*", []string{"a", "ab", "abcdefg", "a\x00"}, []string{"", "b", "ba", "\x00a", "A"}, prefixKey},
		{"ab*", []string{"ab", "abc", "ab\x00\x00"}, []string{"a", "b", "ac", "ba", "\x00ab"}, prefixKey},
		{"seen:*", []string{"seen:", "seen:a", "seen:ab"}, []string{"seen", "seen;", "seex:", "Seen:"}, prefixKey},
		{"abcdefgh*", []string{"abcdefgh", "abcdefghi"}, []string{"abcdefg", "abcdefgx", "bcdefgh"}, prefixKey},
		{"s?en*", []string{"seen:a", "sxen"}, []string{"sen", "xseen"}, globKey},
		{"h[ae]llo:*", []string{"hello:a", "hallo:"}, []string{"hillo:a", "hello"}, globKey},
	} {
		p := newPerms()
		for _, r := range []string{"on", "nopass", "-@all", "+@bloom", "~" + tc.pat} {
			require.NoError(t, p.apply(r))
		}
		newUser("u", p)
		require.Equal(t, tc.kind, p.keys[0].kind, tc.pat)
		for _, k := range tc.yes {
			for _, key := range keySlices(k) {
				assert.True(t, p.keyAllowed(key), "%s ~ %s (cap %d)", k, tc.pat, cap(key))
			}
		}
		for _, k := range tc.no {
			for _, key := range keySlices(k) {
				assert.False(t, p.keyAllowed(key), "%s !~ %s (cap %d)", k, tc.pat, cap(key))
			}
		}
	}

	_, addr := startServer(t, Config{Password: "adminpw"})
	admin := dialUser(t, addr, "default", "adminpw")
	for _, cat := range []string{"admin", "dangerous"} {
		v, err := admin.Do(ctx(t), "ACL", "CAT", cat).StringSlice()
		require.NoError(t, err)
		for _, cmd := range []string{"config|get", "config|set", "mbf.migrate", "mbf.pull", "bf.loadchunk"} {
			assert.Contains(t, v, cmd, "@%s", cat)
		}
	}
	require.NoError(t, admin.Do(ctx(t), "ACL", "SETUSER", "ops", "on", ">pw", "~*", "+@all", "-@dangerous").Err())
	ops := dialUser(t, addr, "ops", "pw")
	assert.Equal(t, "NOPERM this user has no permissions to run the 'config|get' command", do(t, ops, "CONFIG", "GET", "maxclients"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'mbf.pull' command", do(t, ops, "MBF.PULL"))
	assert.Equal(t, int64(1), do(t, ops, "BF.ADD", "seen:a", "x"))
	require.NoError(t, admin.Do(ctx(t), "ACL", "SETUSER", "crawler", "on", ">pw", "~seen*", "-@all", "+@bloom").Err())
	crawler := dialUser(t, addr, "crawler", "pw")
	assert.Equal(t, int64(1), do(t, crawler, "BF.ADD", "seen:example.com", "x"))
	assert.Equal(t, int64(1), do(t, crawler, "BF.ADD", "seen", "x"))
	assert.Equal(t, "NOPERM this user has no permissions to access one of the keys used as arguments", do(t, crawler, "BF.ADD", "other:example.com", "x"))
	assert.Equal(t, "NOPERM this user has no permissions to access one of the keys used as arguments", do(t, crawler, "BF.ADD", "s", "x"))
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
