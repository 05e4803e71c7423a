package server

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// aclScript is one sequence of requests on three connections (0: the
// default user, which sets the rules; 1 and 2: the users it makes), sent
// byte for byte to redis-server 7.0.15 and to the server. CLUSTER's
// subcommands answer "cluster support disabled" on both when allowed.
// Rules are granted so that a category and its commands agree on both
// (+@transaction: Redis's has WATCH and UNWATCH too, so +multi +exec
// would read as +@transaction -discard here).
var aclScript = []struct {
	conn int
	req  string
	mode int // exact, or rules
}{
	// Subcommands granted by name.
	{0, "ACL SETUSER u on nopass ~a* -@all +cluster|slots +cluster|nodes +cluster|shards +command|docs +config|get +@transaction +exists\r\n", exact},
	{0, "ACL GETUSER u\r\n", rules},
	{0, "ACL LIST\r\n", rules},
	{1, "AUTH u x\r\n", exact},
	{1, "CLUSTER SLOTS\r\n", exact},
	{1, "CLUSTER NODES\r\n", exact},
	{1, "CLUSTER SHARDS\r\n", exact},
	{1, "CLUSTER INFO\r\n", exact},
	{1, "CLUSTER MYID\r\n", exact},
	{1, "CLUSTER KEYSLOT a\r\n", exact},
	{1, "COMMAND DOCS nosuch\r\n", exact},
	{1, "COMMAND COUNT\r\n", exact},
	{1, "COMMAND\r\n", exact},
	{1, "CONFIG GET maxclients\r\n", exact},
	{1, "CONFIG SET maxclients 100\r\n", exact},
	{1, "EXISTS b\r\n", exact},
	// EXEC after the user's rules changed: the command, then a key.
	{1, "MULTI\r\n", exact},
	{1, "CONFIG GET maxclients\r\n", exact},
	{0, "ACL SETUSER u -config|get\r\n", exact},
	{1, "EXEC\r\n", exact},
	{1, "MULTI\r\n", exact},
	{1, "EXISTS a1\r\n", exact},
	{0, "ACL SETUSER u resetkeys ~b*\r\n", exact},
	{1, "EXEC\r\n", exact},
	// A container granted whole, then subcommands refused by name.
	{0, "ACL SETUSER w on nopass ~* -@all +cluster -cluster|info +command -command|docs +config -config|set\r\n", exact},
	{0, "ACL GETUSER w\r\n", rules},
	{2, "AUTH w x\r\n", exact},
	{2, "CLUSTER INFO\r\n", exact},
	{2, "CLUSTER SLOTS\r\n", exact},
	{2, "COMMAND DOCS nosuch\r\n", exact},
	{2, "COMMAND INFO nosuch\r\n", exact},
	{2, "CONFIG SET maxclients 100\r\n", exact},
	{2, "CONFIG GET maxclients\r\n", exact},
	// Categories over subcommands; unknown subcommands refused.
	{0, "ACL SETUSER w nocommands +@all -@dangerous\r\n", exact},
	{2, "CLUSTER INFO\r\n", exact},
	{2, "CONFIG GET maxclients\r\n", exact},
	{2, "COMMAND COUNT nosuch\r\n", exact},
	{0, "ACL SETUSER w -@all +@connection\r\n", exact},
	// The payload flags: reset sets sanitize-payload, as ACL SAVE
	// writes it in users.acl.
	{0, "ACL SETUSER s reset on nopass ~* +@all -@dangerous\r\n", exact},
	{0, "ACL GETUSER s\r\n", rules},
	{0, "ACL SETUSER s2 on nopass skip-sanitize-payload\r\n", exact},
	{0, "ACL LIST\r\n", rules},
	{0, "ACL SETUSER s2 sanitize-payload\r\n", exact},
	{0, "ACL GETUSER s2\r\n", rules},
	{0, "ACL GETUSER w\r\n", rules},
	{2, "CLUSTER INFO\r\n", exact},
	{0, "ACL SETUSER x +cluster|nosuch\r\n", exact},
	{0, "ACL SETUSER x +config|get|x\r\n", exact},
	{0, "ACL SETUSER x +nosuch|get\r\n", exact},
	{0, "ACL SETUSER x +cluster|\r\n", exact},
	{0, "ACL SETUSER x -config|get|x\r\n", exact},
	{0, "ACL SETUSER x -cluster|nosuch\r\n", exact},
	{0, "ACL SETUSER x -@all +cluster|SLOTS\r\n", exact},
	{0, "ACL GETUSER x\r\n", rules},
}

// TestACLAsRedis sends aclScript to Debian's redis-server 7.0.15 and to
// the server and compares every reply byte for byte.
func TestACLAsRedis(t *testing.T) {
	ref := startRedisRef(t)
	_, addr := startServer(t, Config{ClientIdle: -1, AppendFsync: AppendFsyncNo})
	var rc, sc [3]*rawClient
	for i := range rc {
		rc[i], sc[i] = dialRaw(t, ref), dialRaw(t, addr)
	}
	for _, step := range aclScript {
		want, got := rc[step.conn].roundTrip(t, step.req), sc[step.conn].roundTrip(t, step.req)
		if step.mode == rules {
			want, got = sortedRules(want), sortedRules(got)
		}
		assert.Equal(t, clipReply(want), clipReply(got), "%d %q", step.conn, step.req)
	}
}

// rules is the mode of a reply holding a user's command rules (ACL
// GETUSER, ACL LIST), which Redis 7.0 writes in the order of its command
// dictionary, random at each start: compared with the rules after
// +@all or -@all sorted.
const rules = keySpecs + 1

// sortedRules returns reply with the words after "+@all" or "-@all" on
// each line sorted.
func sortedRules(reply []byte) []byte {
	lines := strings.Split(string(reply), "\r\n")
	for i, l := range lines {
		words := strings.Split(l, " ")
		for j, w := range words {
			if w == "+@all" || w == "-@all" {
				slices.Sort(words[j+1:])
				break
			}
		}
		lines[i] = strings.Join(words, " ")
	}
	return []byte(strings.Join(lines, "\r\n"))
}

// clipReply is a reply to compare: its first 600 bytes, then its length
// (COMMAND's reply runs to many kilobytes).
func clipReply(b []byte) string {
	if len(b) <= 600 {
		return string(b)
	}
	return string(b[:600]) + "... (" + strconv.Itoa(len(b)) + " bytes)"
}
