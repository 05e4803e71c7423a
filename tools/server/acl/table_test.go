package acl_test

import (
	"testing"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLookup: commands in any case, subcommands by their full name; a
// name with '|' lowered as strings.ToLower does (the Kelvin sign is a
// k), one without in ASCII only, as the server looks commands up.
func TestLookup(t *testing.T) {
	table := acl.NewTestTable()
	for name, want := range map[string]string{
		"bf.add": "bf.add", "BF.Add": "bf.add", "acl|whoami": "acl|whoami", "ACL|WhoAmI": "acl|whoami", "acl": "acl",
		"client|\u212Aill": "client|kill",
	} {
		got, ok := table.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, id(t, table, want), got, name)
	}
	for _, name := range []string{"", "nosuch", "acl|", "acl|nosuch", "bf.add|x", "|whoami", "acl|cat|x", "\u212Aill", "pin\u0261"} {
		_, ok := table.Lookup(name)
		assert.False(t, ok, name)
	}
}

// TestCategories: a command's categories, those it names and those its
// flags imply (Redis 7.0's COMMAND INFO), and the commands of one (ACL
// CAT).
func TestCategories(t *testing.T) {
	table := acl.NewTestTable()
	assert.Equal(t, []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog",
		"geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection", "transaction", "scripting", "bloom"},
		acl.Categories())
	for name, want := range map[string][]string{
		"bf.exists":    {"read", "fast", "bloom"},
		"bf.loadchunk": {"write", "admin", "slow", "dangerous", "bloom"},
		"mbf.migrate":  {"admin", "slow", "dangerous"},
		"del":          {"keyspace", "write", "slow", "dangerous"},
		"acl|whoami":   {"slow"},
		"auth":         {"fast", "connection"},
	} {
		assert.Equal(t, want, table.CategoriesOf(id(t, table, name)), name)
	}
	cmds, ok := table.CategoryCommands("Dangerous")
	require.True(t, ok)
	assert.Equal(t, []string{"acl|setuser", "bf.loadchunk", "client|kill", "config|get", "del", "mbf.migrate"}, cmds)
	cmds, ok = table.CategoryCommands("geo")
	assert.True(t, ok)
	assert.Empty(t, cmds)
	_, ok = table.CategoryCommands("nosuch")
	assert.False(t, ok)
}

// TestNewTableRefuses: tables NewTable refuses, with ErrTable.
func TestNewTableRefuses(t *testing.T) {
	for _, cmds := range [][]acl.Command{
		{{Name: "a", Categories: []string{"@nosuch"}}},
		{{Name: "a|b"}},
		{{Name: "a"}, {Name: "a"}},
		{{Name: "a", First: -1}},
		{{Name: "a", First: 1, Last: 1}},
		{{Name: "a", First: 1 << 24, Last: 1 << 24, Step: 1}},
	} {
		_, err := acl.NewTable(cmds)
		require.ErrorIs(t, err, acl.ErrTable, "%v", cmds)
	}
}

// TestLastKey: the last key position of a call, from the end for a
// negative last.
func TestLastKey(t *testing.T) {
	for _, tc := range [][3]int{{1, 3, 1}, {1, 1, 0}, {-1, 4, 3}, {-2, 5, 3}, {2, 2, 1}} {
		assert.Equal(t, tc[2], acl.LastKey(tc[0], tc[1]), "%v", tc)
	}
}
