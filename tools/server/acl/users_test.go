package acl_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// passwordHash is a password as ACL LIST shows it: SHA-256, hex.
func passwordHash(pass string) string {
	sum := sha256.Sum256([]byte(pass))
	return hex.EncodeToString(sum[:])
}

// TestSetUser: rules all or none, each refusal with the rule and its
// sentinel (Redis's text), the user names refused.
func TestSetUser(t *testing.T) {
	us, err := acl.NewUsers(acl.NewTestTable(), "adminpw", "")
	require.NoError(t, err)
	require.NoError(t, us.SetUser("x", []string{"on", ">pw", "~a*"}))
	before := us.Get("x").Rules().Describe()
	for _, tc := range []struct {
		rule string
		want error
	}{
		{"foo", acl.ErrSyntax}, {"+nosuch", acl.ErrUnknown}, {"+@nosuch", acl.ErrUnknown},
		{"#abc", acl.ErrHash}, {"!" + passwordHash("x")[:63] + "G", acl.ErrHash}, {"<nope", acl.ErrNoPassword},
		{"~a b", acl.ErrSyntax}, {"&a\x00", acl.ErrSyntax},
		// +name|arg as Redis 7.0's ACLSetSelector tells them apart.
		{"+config|get|x", acl.ErrFirstArgSub}, {"+config|", acl.ErrSyntax}, {"+config|nosuch", acl.ErrUnknown},
		{"+nosuch|get", acl.ErrUnknown}, {"-config|get|x", acl.ErrUnknown}, {"-config|", acl.ErrUnknown},
	} {
		err := us.SetUser("x", []string{"-@all", tc.rule, "+@all"})
		require.ErrorIs(t, err, tc.want, tc.rule)
		var bad *acl.RuleError
		require.ErrorAs(t, err, &bad)
		assert.Equal(t, tc.rule, bad.Rule)
		assert.Equal(t, before, us.Get("x").Rules().Describe(), "none of the rules applied")
	}
	require.ErrorIs(t, us.SetUser("y", []string{"~a", "allkeys", "~b"}), acl.ErrAllKeys)
	require.ErrorIs(t, us.SetUser("y", []string{"allchannels", "&b"}), acl.ErrAllChannels)
	assert.Nil(t, us.Get("y"), "no user made by a refused SETUSER")
	for _, name := range []string{"bad name", "a\x00", "tab\t"} {
		require.ErrorIs(t, us.SetUser(name, []string{"on"}), acl.ErrUserName, "%q", name)
	}
	require.NoError(t, us.SetUser("", []string{"on"}), `"" is a name, as in Redis`)
}

// TestDescription: ACL GETUSER's and ACL LIST's descriptions, Redis
// 7.0.15's (observed with redis-cli on Debian's redis-server), hashes
// and never passwords.
func TestDescription(t *testing.T) {
	us, err := acl.NewUsers(acl.NewTestTable(), "adminpw", "")
	require.NoError(t, err)
	secret := "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
	require.NoError(t, us.SetUser("bob", []string{"on", ">pw", "allkeys", "+@all", "-del", "#" + secret}))
	require.NoError(t, us.SetUser("carol", []string{"on", "nopass", "~a*", "+ping"}))
	require.NoError(t, us.SetUser("crawler", []string{"on", ">crawlpw", "~seen:*", "-@all", "+@bloom", "-bf.loadchunk"}))
	require.NoError(t, us.SetUser("dis", []string{"off", ">p", "&ch"}))
	require.NoError(t, us.SetUser("rst", []string{"reset", "on", "nopass", "+@all"}))
	require.NoError(t, us.SetUser("skip", []string{"sanitize-payload", "skip-sanitize-payload"}))
	assert.Equal(t, []string{"on", "nopass", "sanitize-payload"}, us.Get("rst").Rules().Description().Flags)
	assert.Equal(t, acl.Description{Flags: []string{"on"}, Passwords: []string{passwordHash("pw"), secret},
		Commands: "+@all -del", Keys: "~*", Channels: ""}, us.Get("bob").Rules().Description())
	assert.Equal(t, acl.Description{Flags: []string{"on", "nopass"}, Commands: "-@all +ping", Keys: "~a*", Channels: ""},
		us.Get("carol").Rules().Description())
	assert.Equal(t, acl.Description{Flags: []string{"off"}, Passwords: []string{passwordHash("p")}, Commands: "-@all", Channels: "&ch"},
		us.Get("dis").Rules().Description())
	assert.Equal(t, []string{
		"user bob on #" + passwordHash("pw") + " #" + secret + " ~* resetchannels +@all -del",
		"user carol on nopass ~a* resetchannels -@all +ping",
		"user crawler on #" + passwordHash("crawlpw") + " ~seen:* resetchannels -@all +@bloom -bf.loadchunk",
		"user default on #" + passwordHash("adminpw") + " ~* &* +@all",
		"user dis off #" + passwordHash("p") + " resetchannels &ch -@all",
		"user rst on nopass sanitize-payload resetchannels +@all",
		"user skip off skip-sanitize-payload resetchannels -@all",
	}, us.List())
}

// TestAuthenticate: a user on with one of its passwords (or nopass);
// anything else is the same WRONGPASS; Open only for a default user on
// and nopass.
func TestAuthenticate(t *testing.T) {
	us, err := acl.NewUsers(acl.NewTestTable(), "adminpw", "")
	require.NoError(t, err)
	assert.False(t, us.Open())
	require.NoError(t, us.SetUser("a", []string{"on", ">one", ">two"}))
	require.NoError(t, us.SetUser("n", []string{"on", "nopass"}))
	require.NoError(t, us.SetUser("off", []string{"off", ">pw"}))
	for _, tc := range [][2]string{{"default", "adminpw"}, {"a", "one"}, {"a", "two"}, {"n", "anything"}} {
		u, err := us.Authenticate([]byte(tc[0]), []byte(tc[1]))
		require.NoError(t, err, "%v", tc)
		assert.Equal(t, tc[0], u.Name())
	}
	for _, tc := range [][2]string{{"default", ""}, {"a", "three"}, {"off", "pw"}, {"nobody", "x"}} {
		_, err := us.Authenticate([]byte(tc[0]), []byte(tc[1]))
		require.ErrorIs(t, err, acl.ErrWrongPass, "%v", tc)
		assert.EqualError(t, err, "WRONGPASS invalid username-password pair or user is disabled.")
	}
	open, err := acl.NewUsers(acl.NewTestTable(), "", "")
	require.NoError(t, err)
	assert.True(t, open.Open())
}

// TestDelUser: the users that existed are returned; the default user is
// refused, and then none is removed.
func TestDelUser(t *testing.T) {
	us, err := acl.NewUsers(acl.NewTestTable(), "", "")
	require.NoError(t, err)
	require.NoError(t, us.SetUser("a", nil))
	require.NoError(t, us.SetUser("b", nil))
	_, err = us.DelUser([]string{"a", "default"})
	require.ErrorIs(t, err, acl.ErrDefaultUser)
	assert.Equal(t, []string{"a", "b", "default"}, us.Names())
	gone, err := us.DelUser([]string{"a", "nobody", "a"})
	require.NoError(t, err)
	require.Len(t, gone, 1)
	assert.Equal(t, "a", gone[0].Name())
	assert.Equal(t, []string{"b", "default"}, us.Names())
}
