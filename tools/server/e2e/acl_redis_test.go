package e2e_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestServeACLRepliesAsRedis sends the same ACL, AUTH and refused
// commands to redis-server 7.0 and to mmapbloom serve, as an
// administrator and as a restricted user, and compares every reply
// (RESP2, values and error texts).
func TestServeACLRepliesAsRedis(t *testing.T) {
	ref := testkit.RedisServer(t, "adm")
	s := startServe(t, t.TempDir(), []string{"MMAPBLOOM_REQUIREPASS=adm"})
	steps := []struct {
		user string // "": the administrator's connection
		args []any
	}{
		{"", []any{"ACL", "SETUSER", "u1", "on", ">p1", "~k:*", "-@all", "+exists"}},
		{"", []any{"ACL", "SETUSER", "x", "foo"}},
		{"", []any{"ACL", "SETUSER", "x", "+nosuch"}},
		{"", []any{"ACL", "SETUSER", "x", "+@nosuch"}},
		{"", []any{"ACL", "SETUSER", "x", "#abc"}},
		{"", []any{"ACL", "SETUSER", "x", "<nope"}},
		{"", []any{"ACL", "SETUSER", "x", "~a", "allkeys", "~b"}},
		{"", []any{"ACL", "SETUSER", "bad name", "on"}},
		{"", []any{"ACL", "SETUSER"}},
		{"", []any{"ACL", "FOO"}},
		{"", []any{"ACL", "GETUSER", "u1"}},
		{"", []any{"ACL", "GETUSER", "x"}},
		{"", []any{"ACL", "DELUSER", "default"}},
		{"", []any{"ACL", "CAT", "nosuch"}},
		{"", []any{"ACL", "LOAD"}},
		{"", []any{"ACL", "SAVE"}},
		{"", []any{"ACL", "SETUSER", "u2", "on", "nopass", "allkeys", "&*", "+@all", "-del", "#" + fmt.Sprintf("%064x", 7)}},
		{"", []any{"ACL", "SETUSER", "u3", "off", ">a", ">b", "<a", "resetkeys", "~x", "~x", "~y?"}},
		{"", []any{"ACL", "GETUSER", "u2"}},
		{"", []any{"ACL", "GETUSER", "u3"}},
		{"", []any{"ACL", "LIST"}},
		{"", []any{"ACL", "USERS"}},
		{"", []any{"ACL", "WHOAMI"}},
		{"", []any{"AUTH", "wrong"}},
		{"", []any{"AUTH", "nobody", "x"}},
		{"", []any{"AUTH", "u3", "b"}},
		{"", []any{"HELLO", "2", "AUTH", "u1", "wrong"}},
		{"u1", []any{"EXISTS", "k:1"}},
		{"u1", []any{"EXISTS", "k:1", "other"}},
		{"u1", []any{"PING"}},
		{"u1", []any{"DEL", "k:1"}},
		{"u1", []any{"ACL", "WHOAMI"}},
		{"u1", []any{"MULTI"}},
		{"", []any{"ACL", "DELUSER", "u1", "u2", "nobody"}},
	}
	run := func(addr string) []string {
		admin := redis.NewClient(&redis.Options{Addr: addr, Password: "adm", Protocol: 2, PoolSize: 1, MaxRetries: -1, DisableIdentity: true})
		defer admin.Close()
		u1 := redis.NewClient(&redis.Options{Addr: addr, Username: "u1", Password: "p1", Protocol: 2, PoolSize: 1, MaxRetries: -1, DisableIdentity: true})
		defer u1.Close()
		var out []string
		for _, st := range steps {
			rdb := admin
			if st.user == "u1" {
				rdb = u1
			}
			v, err := rdb.Do(t.Context(), st.args...).Result()
			if err != nil {
				out = append(out, fmt.Sprintf("%v -> error %v", st.args, err))
			} else {
				out = append(out, fmt.Sprintf("%v -> %#v", st.args, v))
			}
		}
		return out
	}
	want, got := run(ref), run(s.addr)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i], got[i], "step "+strconv.Itoa(i))
	}
}
