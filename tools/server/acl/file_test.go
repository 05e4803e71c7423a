package acl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseFile: the users of a file, and every error of one in Redis
// 7.0's words, each ending ". ".
func TestParseFile(t *testing.T) {
	table := acl.NewTestTable()
	users, err := acl.ParseFile(table, "f", []byte("user default on >adm ~* &* +@all\n\nuser ro on >ro ~* -@all +@read\r\n"))
	require.NoError(t, err)
	require.Len(t, users, 2)
	assert.Equal(t, "on #"+passwordHash("ro")+" ~* resetchannels -@all +@read", users["ro"].Describe())
	for _, tc := range []struct{ text, want string }{
		{"user ro on >ro ~* +@nosuch\nbad line\n", "f:1: Error in applying operation '+@nosuch': Unknown command or category name in ACL. f:2 should start with user keyword followed by the username. "},
		{"user a +nosuch +nope ~a allkeys ~b #abc\n", "f:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. f:1: Error in applying operation '+nope': Unknown command or category name in ACL. f:1: Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns. "},
		{"user a on\nuser a off\n", "WARNING: Duplicate user 'a' found on line 2. "},
		{"user\n", "f:1 should start with user keyword followed by the username. "},
		{"# comment\n", "f:1 should start with user keyword followed by the username. "},
		{"user a\x00b on\n", "'f:1: username 'a\x00b' contains invalid characters. "},
	} {
		_, err := acl.ParseFile(table, "f", []byte(tc.text))
		require.ErrorIs(t, err, acl.ErrFile, tc.text)
		assert.Equal(t, "Error loading ACLs: "+tc.want, err.Error(), tc.text)
	}
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
	table := acl.NewTestTable()
	f.Fuzz(func(t *testing.T, text []byte) {
		users, err := acl.ParseFile(table, "f", text)
		if err != nil {
			require.ErrorIs(t, err, acl.ErrFile)
			return
		}
		var sb strings.Builder
		for name, r := range users {
			require.NotContains(t, name, " ") // "" is a name, as in Redis
			require.False(t, strings.ContainsAny(name, " \t\r\n\v\f\x00"), "%q", name)
			sb.WriteString("user " + name + " " + r.Describe() + "\n")
		}
		again, err := acl.ParseFile(table, "f", []byte(sb.String()))
		require.NoError(t, err, sb.String())
		require.Len(t, again, len(users))
		for name, r := range users {
			require.Equal(t, r.Describe(), again[name].Describe())
		}
	})
}

// TestUsersFile: users read at start and by Load (the users gone
// returned, a user kept keeps its *User with the new rules), written by
// Save as List shows them; a file with an error changes nothing.
func TestUsersFile(t *testing.T) {
	table := acl.NewTestTable()
	path := filepath.Join(t.TempDir(), "users.acl")
	require.NoError(t, os.WriteFile(path, []byte("user ro on >ro ~* -@all +@read\nuser old on nopass\n"), 0o600))
	us, err := acl.NewUsers(table, "ignored", path)
	require.NoError(t, err)
	assert.Equal(t, path, us.File())
	assert.Equal(t, []string{"default", "old", "ro"}, us.Names())
	assert.True(t, us.Open(), "a file without the default user gets Redis's: on, nopass")
	ro := us.Get("ro")
	bfAdd := id(t, table, "bf.add")
	assert.Equal(t, noPermBF, ro.Allowed(bfAdd, args("bf.add", "k", "x")))

	require.NoError(t, os.WriteFile(path, []byte("user ro on >ro ~* +@nosuch\n"), 0o600))
	_, err = us.Load()
	require.ErrorIs(t, err, acl.ErrFile)
	assert.Equal(t, []string{"default", "old", "ro"}, us.Names(), "unchanged")

	require.NoError(t, us.SetUser("w", []string{"on", ">w", "~*", "+@write"}))
	require.NoError(t, us.Save())
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Join(us.List(), "\n")+"\n", string(saved))
	assert.Contains(t, string(saved), "user w on #"+passwordHash("w")+" ~* resetchannels -@all +@write\n")

	require.NoError(t, os.WriteFile(path, []byte("user default on >adm ~* &* +@all\nuser ro on >ro ~* -@all +@bloom\n"), 0o600))
	gone, err := us.Load()
	require.NoError(t, err)
	var names []string
	for _, u := range gone {
		names = append(names, u.Name())
	}
	assert.ElementsMatch(t, []string{"old", "w"}, names)
	assert.Same(t, ro, us.Get("ro"))
	assert.Empty(t, ro.Allowed(bfAdd, args("bf.add", "k", "x")), "ro's new rules")
	assert.False(t, us.Open())

	_, err = acl.NewUsers(table, "", filepath.Join(t.TempDir(), "none.acl"))
	require.ErrorIs(t, err, acl.ErrFile)
	require.ErrorIs(t, err, os.ErrNotExist)
}
