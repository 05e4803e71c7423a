package obs_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// TestSlowLog: entries newest first, IDs in order of Add, at most max
// kept (the oldest dropped), IDs going on after Reset.
func TestSlowLog(t *testing.T) {
	var l obs.SlowLog
	for i := range 5 {
		l.Add(obs.SlowEntry{Unix: int64(1000 + i), Usec: int64(i), Addr: "127.0.0.1:1", Name: "n"}, 3)
	}
	require.Equal(t, 3, l.Len())
	all := l.Latest(-1)
	require.Len(t, all, 3)
	for i, e := range all {
		assert.EqualValues(t, 4-i, e.ID)
		assert.EqualValues(t, 1004-i, e.Unix)
		assert.EqualValues(t, 4-i, e.Usec)
	}
	assert.Equal(t, all[:2], l.Latest(2))
	assert.Empty(t, l.Latest(0))
	assert.Equal(t, all, l.Latest(10))

	l.Add(obs.SlowEntry{}, 1) // a smaller max drops down to it
	assert.Equal(t, []obs.SlowEntry{{ID: 5}}, l.Latest(-1))

	l.Reset()
	assert.Zero(t, l.Len())
	l.Add(obs.SlowEntry{}, 3)
	assert.EqualValues(t, 6, l.Latest(1)[0].ID)
}

func TestSlowArgs(t *testing.T) {
	args := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	many := []string{"BF.MADD", "k"}
	for i := range 40 {
		many = append(many, strconv.Itoa(i))
	}
	long := strings.Repeat("u", 200)
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"plain", []string{"BF.ADD", "k", "v"}, []string{"BF.ADD", "k", "v"}},
		{"auth", []string{"auth", "user", "pw"}, []string{"auth", "(redacted)", "(redacted)"}},
		{"hello auth", []string{"HELLO", "3", "AUTH", "u", "pw", "SETNAME", "n"},
			[]string{"HELLO", "3", "AUTH", "(redacted)", "(redacted)", "(redacted)", "(redacted)"}},
		{"hello", []string{"HELLO", "3", "SETNAME", "auth"}, []string{"HELLO", "3", "SETNAME", "auth"}},
		{"acl setuser", []string{"ACL", "SETUSER", "u", ">pw", "on"}, []string{"ACL", "SETUSER", "u", "(redacted)", "(redacted)"}},
		{"acl list", []string{"ACL", "LIST"}, []string{"ACL", "LIST"}},
		{"config set requirepass", []string{"config", "set", "requirepass", "pw"}, []string{"config", "set", "requirepass", "(redacted)"}},
		{"config set masterauth", []string{"CONFIG", "SET", "MASTERAUTH", "pw"}, []string{"CONFIG", "SET", "MASTERAUTH", "(redacted)"}},
		{"config set other", []string{"CONFIG", "SET", "maxclients", "10"}, []string{"CONFIG", "SET", "maxclients", "10"}},
		{"long", []string{"BF.ADD", "k", long}, []string{"BF.ADD", "k", strings.Repeat("u", 128) + "... (72 more bytes)"}},
		{"exactly 128", []string{"BF.ADD", long[:128]}, []string{"BF.ADD", long[:128]}},
		{"many", many, append(append([]string(nil), many[:31]...), "... (11 more arguments)")},
		{"exactly 32", many[:32], many[:32]},
		{"empty", nil, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, obs.SlowArgs(args(tc.in...)))
		})
	}
}
