package server

import (
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandIntrospection: COMMAND, COMMAND INFO and COMMAND DOCS with
// no name list every command, as many as COMMAND COUNT and COMMAND LIST
// say; every command that takes arguments documents them (or its
// subcommands do); containers list their subcommands.
func TestCommandIntrospection(t *testing.T) {
	s, addr := startServer(t, Config{})
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer rdb.Close()
	c := ctx(t)
	count, err := rdb.Do(c, "COMMAND", "COUNT").Int()
	require.NoError(t, err)
	assert.Equal(t, len(s.cmds.byName), count)
	for _, sub := range [][]any{{"COMMAND"}, {"COMMAND", "INFO"}, {"COMMAND", "LIST"}} {
		v, err := rdb.Do(c, sub...).Slice()
		require.NoError(t, err)
		assert.Len(t, v, count, "%v", sub)
	}
	docs, err := rdb.Do(c, "COMMAND", "DOCS").Slice()
	require.NoError(t, err)
	require.Len(t, docs, 2*count)
	for i := 0; i < len(docs); i += 2 {
		name, fields := docs[i].(string), docs[i+1].([]any)
		cmd := s.cmds.byName[name]
		require.NotNil(t, cmd, name)
		got := map[string]any{}
		for j := 0; j < len(fields); j += 2 {
			got[fields[j].(string)] = fields[j+1]
		}
		assert.NotEmpty(t, got["summary"], name)
		if cmd.arity != 1 && cmd.arity != -1 {
			assert.True(t, got["arguments"] != nil || got["subcommands"] != nil, "%s takes arguments: documented", name)
		}
	}
	info, err := rdb.Do(c, "COMMAND", "INFO", "config", "config|set", "nosuch").Slice()
	require.NoError(t, err)
	require.Len(t, info, 3)
	subs := info[0].([]any)[9].([]any)
	assert.Len(t, subs, 4, "config|get, help, resetstat, set")
	set := info[1].([]any)
	assert.Equal(t, "config|set", set[0])
	assert.Equal(t, []any{"request_policy:all_nodes", "response_policy:all_succeeded"}, set[7])
	assert.Nil(t, info[2])
}

// TestCommandDocsBFReserve: BF.RESERVE's argument specs, as redis-cli 7
// reads them for its hints.
func TestCommandDocsBFReserve(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer rdb.Close()
	docs, err := rdb.Do(ctx(t), "COMMAND", "DOCS", "BF.RESERVE").Slice()
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Equal(t, "bf.reserve", docs[0])
	fields := docs[1].([]any)
	assert.Equal(t, []any{"group", "module", "module", "bf", "arguments"}, fields[4:9])
	args := fields[9].([]any)
	require.Len(t, args, 5)
	assert.Equal(t, []any{"name", "key", "type", "key", "key_spec_index", int64(0)}, args[0], "Redis 7.0 names the key specification of a key argument")
	assert.Equal(t, []any{"name", "expansion", "type", "integer", "token", "EXPANSION", "flags", []any{"optional"}}, args[3])
	assert.Equal(t, []any{"name", "nonscaling", "type", "pure-token", "token", "NONSCALING", "flags", []any{"optional"}}, args[4])
}

// TestBFKeySpecs: COMMAND INFO gives each BF command the key
// specification RedisBloom 2.8 has on redis-server 7.0, byte for byte
// in RESP2 and RESP3 (testdata/redisbloom/keyspecs.txt, with its
// sources); every keyed command of the table has one, made of its key
// positions, and the others none.
func TestBFKeySpecs(t *testing.T) {
	blocks := readReplyBlocks(t, "testdata/redisbloom/keyspecs.txt")
	require.Len(t, blocks, 2)
	s, addr := startServer(t, Config{})
	for _, b := range blocks {
		rc := dialRaw(t, addr)
		if b.proto == 3 {
			rc.roundTrip(t, "HELLO 3\r\n")
		}
		specs := keySpecsOf(t, rc.roundTrip(t, respCommand(b.send[0]...)))
		require.Len(t, specs, len(b.send[0])-2, b.source)
		for i, spec := range specs {
			assert.Equal(t, b.want, spec, "%s: %s", b.source, b.send[0][i+2])
		}
	}
	rc := dialRaw(t, addr)
	for _, cmd := range s.cmds.list {
		specs := keySpecsOf(t, rc.roundTrip(t, respCommand("COMMAND", "INFO", cmd.name)))
		require.Len(t, specs, 1, cmd.name)
		if cmd.first == 0 {
			assert.Equal(t, "*0\r\n", specs[0], cmd.name)
		} else {
			assert.Contains(t, specs[0], "$5\r\nindex\r\n:"+strconv.Itoa(cmd.first)+"\r\n", cmd.name)
		}
	}
}
