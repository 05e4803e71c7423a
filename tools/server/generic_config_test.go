package server

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigSetBloomDefaults: CONFIG SET of RedisBloom's parameters
// (Redis 8's names) changes the filter BF.ADD creates for a missing key;
// CONFIG GET reads them back, in any case and by pattern.
func TestConfigSetBloomDefaults(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir, DefaultExpansion: 2})
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer rdb.Close()
	c := ctx(t)
	got, err := rdb.Do(c, "CONFIG", "GET", "BF-*").Slice()
	require.NoError(t, err)
	assert.ElementsMatch(t, []any{"bf-error-rate", "0.01", "bf-initial-size", "1000000", "bf-expansion-factor", "2"}, got)

	require.NoError(t, rdb.Do(c, "CONFIG", "SET", "bf-initial-size", "500", "BF-ERROR-RATE", "0.001", "bf-expansion-factor", "4").Err())
	require.NoError(t, rdb.BFAdd(c, "scaling", "x").Err())
	info := rdb.BFInfo(c, "scaling").Val()
	assert.EqualValues(t, 500, info.Capacity)
	assert.EqualValues(t, 4, info.ExpansionRate)
	assert.Equal(t, []any{"bf-error-rate", "0.001"}, rdb.Do(c, "CONFIG", "GET", "bf-error-rate").Val())

	require.NoError(t, rdb.Do(c, "CONFIG", "SET", "bf-expansion-factor", "0").Err())
	require.NoError(t, rdb.BFAdd(c, "fixed", "x").Err())
	assert.FileExists(t, filepath.Join(dir, "fixed"+keyname.FileSuffix), "a NONSCALING file")

	for _, tc := range []struct {
		args []any
		want string
	}{
		// RedisBloom's texts for its parameters (its src/config.c), Redis's for Redis's
		{[]any{"bf-error-rate", "1"}, "ERR CONFIG SET failed (possibly related to argument 'bf-error-rate') - Value for `bf-error-rate` must be in the range (0.000000, 1.000000)"},
		{[]any{"bf-error-rate", "x"}, "ERR CONFIG SET failed (possibly related to argument 'bf-error-rate') - Invalid value for `bf-error-rate`"},
		{[]any{"bf-initial-size", "0"}, "ERR CONFIG SET failed (possibly related to argument 'bf-initial-size') - Value for `bf-initial-size` must be in the range [1, 1073741824]"},
		{[]any{"bf-initial-size", "x"}, "ERR CONFIG SET failed (possibly related to argument 'bf-initial-size') - Invalid value for `bf-initial-size`"},
		{[]any{"bf-expansion-factor", "32769"}, "ERR CONFIG SET failed (possibly related to argument 'bf-expansion-factor') - Value for `bf-expansion-factor` must be in the range [0, 32768]"},
		{[]any{"timeout", "-1"}, "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive"},
		{[]any{"timeout", "x"}, "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer"},
		{[]any{"maxclients", "20000"}, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with 10000"},
		{[]any{"bf-initial-size", "7", "dir", "/"}, "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set immutable config"},
	} {
		err := rdb.Do(c, append([]any{"CONFIG", "SET"}, tc.args...)...).Err()
		require.Error(t, err, "%v", tc.args)
		assert.Equal(t, tc.want, err.Error())
	}
	assert.Equal(t, []any{"bf-initial-size", "500"}, rdb.Do(c, "CONFIG", "GET", "bf-initial-size").Val(), "nothing applied after a refusal")
}

// TestConfigSetMaxClients: a lower maxclients refuses the next
// connections with Redis's error.
func TestConfigSetMaxClients(t *testing.T) {
	_, addr := startServer(t, Config{})
	admin := rawConn(t, addr)
	_, err := admin.Write([]byte("CONFIG SET maxclients 1\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 5)
	_, err = admin.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "+OK\r\n", string(buf))
	assert.Equal(t, "-ERR max number of clients reached\r\n", closedAfter(t, rawConn(t, addr)))
}

// TestConfigGetAll: CONFIG GET * answers every parameter once, with its
// value on a server of the default configuration (dir and port its
// own), in the order of their names.
func TestConfigGetAll(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir})
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	want := [][2]string{
		{"aclfile", ""},
		{"appendfsync", "everysec"},
		{"appendonly", "yes"},
		{"bf-error-rate", "0.01"},
		{"bf-expansion-factor", "0"},
		{"bf-initial-size", "1000000"},
		{"cluster-config-file", ""},
		{"cluster-enabled", "no"},
		{"databases", "1"},
		{"dir", dir},
		{"latency-monitor-threshold", "0"},
		{"latency-tracking", "yes"},
		{"latency-tracking-info-percentiles", "50 99 99.9"},
		{"maxclients", "10000"},
		{"maxmemory", "0"},
		{"maxmemory-policy", "noeviction"},
		{"port", port},
		{"proto-max-bulk-len", "67108864"},
		{"save", ""},
		{"slowlog-log-slower-than", "10000"},
		{"slowlog-max-len", "128"},
		{"stop-writes-on-bgsave-error", "yes"},
		{"timeout", "300"},
	}
	var pairs []string
	for _, p := range want {
		pairs = append(pairs, p[0], p[1])
	}
	got, err := dial(t, addr, "").Do(ctx(t), "CONFIG", "GET", "*").StringSlice()
	require.NoError(t, err)
	assert.Equal(t, pairs, got)
}
