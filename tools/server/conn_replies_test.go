package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorStrings checks RedisBloom's and Redis's error texts, command
// by command (RedisBloom src/rebloom.c; Redis src/server.c, networking.c).
func TestErrorStrings(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "have", "0.01", "100", "NONSCALING").Err())

	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"BF.RESERVE", "k", "0.01"}, "ERR wrong number of arguments for 'bf.reserve' command"},
		{[]any{"BF.RESERVE", "k", "0.01", "1", "a", "b", "c", "d"}, "ERR wrong number of arguments for 'bf.reserve' command"},
		{[]any{"BF.RESERVE", "k", "x", "100"}, "ERR bad error rate"},
		{[]any{"BF.RESERVE", "k", "1", "100"}, "ERR error rate must be in the range (0.000000, 1.000000)"},
		{[]any{"BF.RESERVE", "k", "0", "100"}, "ERR error rate must be in the range (0.000000, 1.000000)"},
		{[]any{"BF.RESERVE", "k", "0.01", "x"}, "ERR bad capacity"},
		{[]any{"BF.RESERVE", "k", "0.01", "0"}, "ERR capacity must be in the range [1, 1073741824]"},
		{[]any{"BF.RESERVE", "k", "0.01", "1073741825"}, "ERR capacity must be in the range [1, 1073741824]"},
		{[]any{"BF.RESERVE", "k", "0.01", "100", "EXPANSION"}, "ERR no expansion"},
		{[]any{"BF.RESERVE", "k", "0.01", "100", "EXPANSION", "x"}, "ERR bad expansion"},
		{[]any{"BF.RESERVE", "k", "0.01", "100", "EXPANSION", "40000"}, "ERR expansion must be in the range [0, 32768]"},
		{[]any{"BF.RESERVE", "k", "0.01", "100", "EXPANSION", "2", "NONSCALING"}, "Nonscaling filters cannot expand"},
		{[]any{"BF.RESERVE", "have", "0.01", "100", "NONSCALING"}, "ERR item exists"},
		{[]any{"BF.ADD", "k"}, "ERR wrong number of arguments for 'bf.add' command"},
		{[]any{"BF.MADD", "k"}, "ERR wrong number of arguments for 'bf.madd' command"},
		{[]any{"BF.EXISTS", "k", "a", "b"}, "ERR wrong number of arguments for 'bf.exists' command"},
		{[]any{"BF.INSERT", "k", "ITEMS"}, "ERR wrong number of arguments for 'bf.insert' command"},
		{[]any{"BF.INSERT", "k", "CAPACITY", "10"}, "ERR wrong number of arguments for 'bf.insert' command"},
		{[]any{"BF.INSERT", "k", "NONSCALING", "ITEMS"}, "ERR wrong number of arguments for 'bf.insert' command"},
		{[]any{"BF.INSERT", "k", "ERROR", "x", "ITEMS", "a"}, "Bad error rate"},
		{[]any{"BF.INSERT", "k", "EXPANSION", "x", "ITEMS", "a"}, "Bad expansion"},
		{[]any{"BF.INSERT", "k", "CAPACITY", "x", "ITEMS", "a"}, "Bad capacity"},
		{[]any{"BF.INSERT", "k", "CAPACITY", "0", "ITEMS", "a"}, "Bad capacity"},
		{[]any{"BF.INSERT", "k", "ERROR", "2", "ITEMS", "a"}, "Bad error rate"},
		{[]any{"BF.INSERT", "k", "EXPANSION", "-1", "ITEMS", "a"}, "Bad expansion"},
		{[]any{"BF.INSERT", "k", "FOO", "ITEMS", "a"}, "Unknown argument received"},
		{[]any{"BF.INSERT", "k", "NOCREATE", "ITEMS", "a"}, "ERR not found"},
		{[]any{"BF.INFO", "k"}, "ERR not found"},
		{[]any{"BF.INFO", "have", "FOO"}, "Invalid information value"},
		{[]any{"BF.INFO", "have", "SIZE", "x"}, "ERR wrong number of arguments for 'bf.info' command"},
		{[]any{"BF.CARD"}, "ERR wrong number of arguments for 'bf.card' command"},
		{[]any{"BF.SCANDUMP", "have", "x"}, "Second argument must be numeric"},
		{[]any{"BF.SCANDUMP", "have", "-0"}, "Second argument must be numeric"}, // string2ll refuses "-0"
		{[]any{"BF.SCANDUMP", "k", "0"}, "ERR not found"},
		{[]any{"BF.LOADCHUNK", "k", "x", "d"}, "ERR Second argument must be numeric"},
		{[]any{"BF.LOADCHUNK", "have", "1", strings.Repeat("x", 64)}, "ERR received bad data"},
		{[]any{"NOSUCH", "a", "b"}, "ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' "},
		{[]any{"nosuch"}, "ERR unknown command 'nosuch', with args beginning with: "},
		{[]any{"HELLO", "4"}, "NOPROTO unsupported protocol version"},
		{[]any{"HELLO", "1"}, "NOPROTO unsupported protocol version"},
		{[]any{"HELLO", "x"}, "ERR Protocol version is not an integer or out of range"},
		{[]any{"AUTH", "pw"}, "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"},
		{[]any{"SELECT", "1"}, "ERR DB index is out of range"},
		{[]any{"CLIENT", "NOSUCH", "x"}, "ERR unknown subcommand 'NOSUCH'. Try CLIENT HELP."},
		{[]any{"CLIENT", "KILL", "x"}, "ERR No such client"},
		{[]any{"BF.ADD", strings.Repeat("k", 201), "a"}, "ERR 201 bytes, at most 200: key too long"},
	} {
		err := rdb.Do(c, tc.args...).Err()
		if assert.Error(t, err, tc.args) {
			assert.Equal(t, tc.want, err.Error(), tc.args)
		}
	}
}

// TestGenericCommands checks the replies of the generic commands.
func TestGenericCommands(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, k := range []string{"b", "a:1", "c d"} {
		require.NoError(t, rdb.BFAdd(c, k, "x").Err())
	}
	assert.Equal(t, "PONG", rdb.Ping(c).Val())
	assert.Equal(t, "hi", rdb.Echo(c, "hi").Val())
	assert.Equal(t, "OK", rdb.Do(c, "SELECT", "0").Val())
	assert.EqualValues(t, 3, rdb.DBSize(c).Val())
	assert.Equal(t, []string{"a:1", "b", "c d"}, rdb.Keys(c, "*").Val())
	assert.Equal(t, []string{"a:1"}, rdb.Keys(c, "a*").Val())
	assert.Equal(t, "MBbloom--", rdb.Type(c, "b").Val())
	assert.Equal(t, "none", rdb.Type(c, "zz").Val())
	assert.EqualValues(t, 2, rdb.Exists(c, "b", "zz", "c d").Val())

	var all []string
	for cur := uint64(0); ; {
		keys, next, err := rdb.Scan(c, cur, "*", 2).Result()
		require.NoError(t, err)
		all = append(all, keys...)
		if cur = next; cur == 0 {
			break
		}
	}
	assert.ElementsMatch(t, []string{"a:1", "b", "c d"}, all, "in SCAN's order (generic_scan.go)")

	assert.Equal(t, "OK", rdb.Do(c, "CLIENT", "SETNAME", "me").Val())
	assert.Equal(t, "me", rdb.Do(c, "CLIENT", "GETNAME").Val())
	id, err := rdb.ClientID(c).Result()
	require.NoError(t, err)
	assert.Positive(t, id)

	info, err := rdb.Info(c).Result()
	require.NoError(t, err)
	for _, want := range []string{"# Server\r\n", "redis_version:7.0.0\r\n", "# Clients\r\n", "connected_clients:1\r\n", "cluster_enabled:0\r\n", "db0:keys=3,expires=0,avg_ttl=0\r\n"} {
		assert.Contains(t, info, want)
	}
	assert.NotContains(t, rdb.Info(c, "keyspace").Val(), "# Server")

	cmds, err := rdb.Command(c).Result()
	require.NoError(t, err)
	add := cmds["bf.add"]
	require.NotNil(t, add)
	assert.Equal(t, int8(3), add.Arity)
	assert.Equal(t, int8(1), add.FirstKeyPos)
	assert.True(t, cmds["bf.exists"].ReadOnly)
	assert.EqualValues(t, len(cmds), rdb.Do(c, "COMMAND", "COUNT").Val())
	assert.Len(t, rdb.Do(c, "COMMAND", "DOCS").Val(), 2*len(cmds), "every command's docs")
	cfg, err := rdb.ConfigGet(c, "maxclients").Result()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"maxclients": "10000"}, cfg)
	cfg, err = rdb.ConfigGet(c, "no-such-thing").Result()
	require.NoError(t, err)
	assert.Empty(t, cfg)

	assert.EqualValues(t, 1, rdb.Del(c, "b", "zz").Val())
	assert.EqualValues(t, 2, rdb.DBSize(c).Val())
}

// parseIntRef is parseInt's rule by strconv: Redis's string2ll accepts
// what strconv.ParseInt does, less '+', leading zeros and "-0".
func parseIntRef(b []byte) (int64, bool) {
	if len(b) == 0 || b[0] == '+' || (len(b) > 1 && b[0] == '0') || (len(b) > 1 && b[0] == '-' && b[1] == '0') {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// FuzzParseInt: parseInt agrees with the strconv rule on any bytes.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "00", "01", "+1", "-", "", "1", "-1", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999",
		"1_000", " 1", "1 ", "0x10", "-01", "12a"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := parseInt(b)
		want, wantOK := parseIntRef(b)
		require.Equal(t, wantOK, ok, "%q", b)
		require.Equal(t, want, v, "%q", b)
	})
}
