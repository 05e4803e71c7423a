package server

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// do runs one command on rdb and returns its value, or its error text.
func do(t *testing.T, rdb *redis.Client, args ...any) any {
	t.Helper()
	v, err := rdb.Do(ctx(t), args...).Result()
	if err != nil {
		return err.Error()
	}
	return v
}

// passwordHash is a password as ACL LIST shows it: SHA-256, hex.
func passwordHash(pass string) string {
	sum := sha256.Sum256([]byte(pass))
	return hex.EncodeToString(sum[:])
}

// dialUser is dial as user, in RESP2 (the replies compared with Redis's).
func dialUser(t *testing.T, addr, user, pass string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Username: user, Password: pass, Protocol: 2,
		MaxRetries: -1, PoolSize: 1, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// TestACLUsers: users, their commands and keys, with Redis 7.0.15's
// replies (observed with redis-cli on Debian's redis-server).
func TestACLUsers(t *testing.T) {
	_, addr := startServer(t, Config{Password: "adminpw"})
	admin := dialUser(t, addr, "default", "adminpw")
	for _, tc := range []struct {
		args []any
		want any
	}{
		{[]any{"ACL", "SETUSER", "crawler", "on", ">crawlpw", "~seen:*", "-@all", "+@bloom", "-bf.loadchunk"}, "OK"},
		{[]any{"ACL", "SETUSER", "x", "foo"}, "ERR Error in ACL SETUSER modifier 'foo': Syntax error"},
		{[]any{"ACL", "SETUSER", "x", "+nosuch"}, "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{[]any{"ACL", "SETUSER", "x", "+@nosuch"}, "ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL"},
		{[]any{"ACL", "SETUSER", "x", "#abc"}, "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
		{[]any{"ACL", "SETUSER", "x", "<nope"}, "ERR Error in ACL SETUSER modifier '<nope': The password you are trying to remove from the user does not exist"},
		{[]any{"ACL", "SETUSER", "x", "~a", "allkeys", "~b"}, "ERR Error in ACL SETUSER modifier '~b': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{[]any{"ACL", "SETUSER", "bad name", "on"}, "ERR Usernames can't contain spaces or null characters"},
		{[]any{"ACL", "SETUSER"}, "ERR wrong number of arguments for 'acl|setuser' command"},
		{[]any{"ACL", "FOO"}, "ERR unknown subcommand 'FOO'. Try ACL HELP."},
		{[]any{"ACL", "GETUSER", "x"}, "redis: nil"},
		{[]any{"ACL", "DELUSER", "default"}, "ERR The 'default' user cannot be removed"},
		{[]any{"ACL", "CAT", "nosuch"}, "ERR Unknown category 'nosuch'"},
		{[]any{"ACL", "LOAD"}, msgNoACLFile},
		{[]any{"ACL", "SETUSER", "bob", "on", ">pw", "allkeys", "+@all", "-del", "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"}, "OK"},
		{[]any{"ACL", "SETUSER", "carol", "on", "nopass", "~a*", "+ping"}, "OK"},
		{[]any{"ACL", "SETUSER", "dis", "off", ">p"}, "OK"},
		{[]any{"ACL", "USERS"}, []any{"bob", "carol", "crawler", "default", "dis"}},
		{[]any{"ACL", "WHOAMI"}, "default"},
		{[]any{"ACL", "GETUSER", "bob"}, []any{"flags", []any{"on"}, "passwords", []any{
			"30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4",
			"5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"},
			"commands", "+@all -del", "keys", "~*", "channels", "", "selectors", []any{}}},
		{[]any{"ACL", "GETUSER", "carol"}, []any{"flags", []any{"on", "nopass"}, "passwords", []any{},
			"commands", "-@all +ping", "keys", "~a*", "channels", "", "selectors", []any{}}},
	} {
		assert.Equal(t, tc.want, do(t, admin, tc.args...), "%v", tc.args)
	}
	list := do(t, admin, "ACL", "LIST")
	assert.Equal(t, []any{
		"user bob on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~* resetchannels +@all -del",
		"user carol on nopass ~a* resetchannels -@all +ping",
		"user crawler on #" + passwordHash("crawlpw") + " ~seen:* resetchannels -@all +@bloom -bf.loadchunk",
		"user default on #" + passwordHash("adminpw") + " ~* &* +@all",
		"user dis off #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 resetchannels -@all",
	}, list, "hashes, never passwords")

	crawler := dialUser(t, addr, "crawler", "crawlpw")
	for _, tc := range []struct {
		args []any
		want any
	}{
		{[]any{"BF.ADD", "seen:a", "x"}, int64(1)},
		{[]any{"BF.EXISTS", "seen:a", "x"}, int64(1)},
		{[]any{"BF.ADD", "other", "x"}, "NOPERM this user has no permissions to access one of the keys used as arguments"},
		{[]any{"BF.LOADCHUNK", "seen:b", "1", "x"}, "NOPERM this user has no permissions to run the 'bf.loadchunk' command"},
		{[]any{"DEL", "seen:a"}, "NOPERM this user has no permissions to run the 'del' command"},
		{[]any{"MBF.MIGRATE", "x"}, "NOPERM this user has no permissions to run the 'mbf.migrate' command"},
		{[]any{"ACL", "WHOAMI"}, "NOPERM this user has no permissions to run the 'acl|whoami' command"},
		{[]any{"AUTH", "crawler", "crawlpw"}, "OK"},
	} {
		assert.Equal(t, tc.want, do(t, crawler, tc.args...), "%v", tc.args)
	}
	for _, tc := range [][]string{{"nobody", "x"}, {"dis", "p"}, {"crawler", "wrong"}} {
		_, err := dialUser(t, addr, tc[0], tc[1]).Ping(ctx(t)).Result()
		assert.EqualError(t, err, "WRONGPASS invalid username-password pair or user is disabled.", "%v", tc)
	}
	assert.Equal(t, int64(1), do(t, admin, "ACL", "DELUSER", "crawler", "nobody"))
	_, err := crawler.Ping(ctx(t)).Result()
	assert.Error(t, err, "the connection of a deleted user is closed")
}

// TestACLPipelineAndMulti: a pipelined run of BF.EXISTS (one batch call)
// and a transaction are checked as single commands are.
func TestACLPipelineAndMulti(t *testing.T) {
	_, addr := startServer(t, Config{Password: "pw"})
	admin := dialUser(t, addr, "default", "pw")
	require.Equal(t, "OK", do(t, admin, "ACL", "SETUSER", "r", "on", ">r", "~seen:*", "+@read", "+@transaction"))
	r := dialUser(t, addr, "r", "r")
	cmds, _ := r.Pipelined(ctx(t), func(p redis.Pipeliner) error {
		for range 3 {
			p.Do(ctx(t), "BF.EXISTS", "other", "x")
		}
		return nil
	})
	for _, c := range cmds {
		assert.EqualError(t, c.Err(), "NOPERM this user has no permissions to access one of the keys used as arguments")
	}
	_, err := r.TxPipelined(ctx(t), func(p redis.Pipeliner) error {
		p.Do(ctx(t), "BF.EXISTS", "seen:a", "x")
		p.Do(ctx(t), "BF.ADD", "seen:a", "x")
		return nil
	})
	assert.EqualError(t, err, "EXECABORT Transaction discarded because of previous errors.")
}

// TestACLFile: users read at start and by ACL LOAD, written by ACL SAVE;
// a file with an error changes nothing and says where it is.
func TestACLFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	require.NoError(t, os.WriteFile(path, []byte("user default on >adm ~* &* +@all\n\nuser ro on >ro ~* -@all +@read\n"), 0o600))
	_, addr := startServer(t, Config{ACLFile: path})
	admin := dialUser(t, addr, "default", "adm")
	ro := dialUser(t, addr, "ro", "ro")
	assert.Equal(t, int64(0), do(t, ro, "BF.EXISTS", "k", "x"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'bf.add' command", do(t, ro, "BF.ADD", "k", "x"))

	require.NoError(t, os.WriteFile(path, []byte("user ro on >ro ~* +@nosuch\nbad line\n"), 0o600))
	assert.Equal(t, "ERR "+path+":1: Error in applying operation '+@nosuch': Unknown command or category name in ACL. "+path+":2 should start with user keyword followed by the username. ",
		do(t, admin, "ACL", "LOAD"))
	assert.Equal(t, int64(0), do(t, ro, "BF.EXISTS", "k", "x"), "unchanged")

	require.Equal(t, "OK", do(t, admin, "ACL", "SETUSER", "w", "on", ">w", "~*", "+@write"))
	require.Equal(t, "OK", do(t, admin, "ACL", "SAVE"))
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(saved), ">w", "hashes only")
	assert.Contains(t, string(saved), "user w on #"+passwordHash("w")+" ~* resetchannels -@all +@write")

	require.NoError(t, os.WriteFile(path, []byte("user default on >adm ~* &* +@all\nuser ro on >ro ~* -@all +@bloom\n"), 0o600))
	assert.Equal(t, "OK", do(t, admin, "ACL", "LOAD"))
	assert.Equal(t, int64(1), do(t, ro, "BF.ADD", "k", "x"), "ro's connection gets its new rules")
	assert.Equal(t, []any{"default", "ro"}, do(t, admin, "ACL", "USERS"))
}

// TestACLFileSubcommands: a users.acl as Redis 7.0's ACL SAVE writes it,
// with CLUSTER's, COMMAND's and CONFIG's subcommands granted and refused
// by name, loads whole and checks each subcommand.
func TestACLFileSubcommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	require.NoError(t, os.WriteFile(path, []byte("user default on #"+passwordHash("adm")+" ~* &* +@all\n"+
		"user ops on #"+passwordHash("ops")+" ~* resetchannels -@all +cluster|slots +cluster|nodes +cluster|shards +command|docs +config|get\n"+
		"user admin on #"+passwordHash("a")+" ~* &* +@all -cluster|reload -config|set\n"), 0o600))
	_, addr := startServer(t, Config{ACLFile: path})
	ops, admin := dialUser(t, addr, "ops", "ops"), dialUser(t, addr, "admin", "a")
	for _, sub := range []string{"SLOTS", "NODES", "SHARDS"} {
		assert.Equal(t, "ERR This instance has cluster support disabled", do(t, ops, "CLUSTER", sub), "allowed")
	}
	assert.Equal(t, "NOPERM this user has no permissions to run the 'cluster|info' command", do(t, ops, "CLUSTER", "INFO"))
	assert.Equal(t, []any{}, do(t, ops, "COMMAND", "DOCS", "nosuch"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'command|info' command", do(t, ops, "COMMAND", "INFO", "ping"))
	assert.Equal(t, []any{"maxclients", "10000"}, do(t, ops, "CONFIG", "GET", "maxclients"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'cluster|reload' command", do(t, admin, "CLUSTER", "RELOAD"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'config|set' command", do(t, admin, "CONFIG", "SET", "maxclients", "1"))
	assert.Equal(t, "ERR This instance has cluster support disabled", do(t, admin, "CLUSTER", "INFO"))
}

// TestCommandInfoCategories: COMMAND INFO lists the categories Redis
// derives from the flags and those the table names.
func TestCommandInfoCategories(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb := dialUser(t, addr, "", "")
	for name, want := range map[string][]any{
		"bf.exists":    {"@read", "@fast", "@bloom"},
		"bf.loadchunk": {"@write", "@admin", "@slow", "@dangerous", "@bloom"},
		"mbf.migrate":  {"@admin", "@slow", "@dangerous"},
		"del":          {"@keyspace", "@write", "@slow", "@dangerous"},
		"acl|whoami":   {"@slow"},
	} {
		v := do(t, rdb, "COMMAND", "INFO", name).([]any)[0].([]any)
		assert.Equal(t, want, v[6], name)
	}
}

// TestACLAdminAndDangerous: CONFIG, the movers and loaders and CLUSTER
// RELOAD are in @admin and @dangerous, so a user without them is refused with Redis's text;
// a user limited to a prefix pattern is refused other keys, shorter ones
// too.
func TestACLAdminAndDangerous(t *testing.T) {
	_, addr := startServer(t, Config{Password: "adminpw"})
	admin := dialUser(t, addr, "default", "adminpw")
	for _, cat := range []string{"admin", "dangerous"} {
		v, err := admin.Do(ctx(t), "ACL", "CAT", cat).StringSlice()
		require.NoError(t, err)
		for _, cmd := range []string{"config|get", "config|set", "mbf.migrate", "mbf.pull", "bf.loadchunk", "cluster|reload"} {
			assert.Contains(t, v, cmd, "@%s", cat)
		}
	}
	require.NoError(t, admin.Do(ctx(t), "ACL", "SETUSER", "ops", "on", ">pw", "~*", "+@all", "-@dangerous").Err())
	ops := dialUser(t, addr, "ops", "pw")
	assert.Equal(t, "NOPERM this user has no permissions to run the 'config|get' command", do(t, ops, "CONFIG", "GET", "maxclients"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'mbf.pull' command", do(t, ops, "MBF.PULL"))
	assert.Equal(t, "NOPERM this user has no permissions to run the 'cluster|reload' command", do(t, ops, "CLUSTER", "RELOAD"))
	assert.Equal(t, "ERR This instance has cluster support disabled", do(t, ops, "CLUSTER", "SLOTS"), "allowed")
	require.NoError(t, admin.Do(ctx(t), "ACL", "SETUSER", "ops", "+@dangerous", "-cluster|reload").Err())
	assert.Equal(t, "NOPERM this user has no permissions to run the 'cluster|reload' command", do(t, ops, "CLUSTER", "RELOAD"))
	assert.Equal(t, int64(1), do(t, ops, "BF.ADD", "seen:a", "x"))
	require.NoError(t, admin.Do(ctx(t), "ACL", "SETUSER", "crawler", "on", ">pw", "~seen*", "-@all", "+@bloom").Err())
	crawler := dialUser(t, addr, "crawler", "pw")
	assert.Equal(t, int64(1), do(t, crawler, "BF.ADD", "seen:example.com", "x"))
	assert.Equal(t, int64(1), do(t, crawler, "BF.ADD", "seen", "x"))
	assert.Equal(t, "NOPERM this user has no permissions to access one of the keys used as arguments", do(t, crawler, "BF.ADD", "other:example.com", "x"))
	assert.Equal(t, "NOPERM this user has no permissions to access one of the keys used as arguments", do(t, crawler, "BF.ADD", "s", "x"))
}
