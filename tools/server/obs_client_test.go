package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientScript is what one client sends, one request at a time, while
// another lists it; redis-server 7.0 and the server must show the same
// cmd=, user= and resp= fields after each, and replies of the same
// type (CLIENT INFO a verbatim string in RESP3).
var clientScript = []string{
	"HELLO 3\r\n",
	"CLIENT INFO\r\n",
	"NOSUCH x\r\n",
	"CLIENT NOSUCH\r\n",
	"CLIENT\r\n",
	"CLIENT ID x\r\n",
	"CLIENT SETNAME me\r\n",
	"CONFIG GET maxclients\r\n",
	"CONFIG FOO\r\n",
	"MULTI\r\n",
	"CONFIG GET maxclients\r\n",
	"PING\r\n",
	"EXEC\r\n",
	"PING\r\n",
	"RESET\r\n",
	"HELLO 3\r\n",
	"HELLO 2\r\n",
	"HELLO 3 SETNAME again\r\n",
	"DBSIZE\r\n",
}

// TestClientListAsRedis runs clientScript on redis-server 7.0 and on
// the server: another client's CLIENT LIST shows the scripted client's
// protocol (resp=, RESP3 after HELLO 3) and its last command as Redis
// names it (container|sub, NULL for an unknown command), in Redis's
// field order. Run with -race: the lister reads what the scripted
// client's goroutine writes.
func TestClientListAsRedis(t *testing.T) {
	ref := startRedisRef(t)
	_, addr := startServer(t, Config{ClientIdle: -1})
	for i, step := range clientScript {
		want, wantType := listedAfter(t, ref, i)
		got, gotType := listedAfter(t, addr, i)
		assert.Equal(t, string(wantType), string(gotType), "%q", step)
		assert.Equal(t, fieldNames(want), fieldNames(got), "%q", step)
		assert.Equal(t, want[strings.Index(want, " name="):strings.Index(want, " age=")],
			got[strings.Index(got, " name="):strings.Index(got, " age=")], "%q", step)
		assert.Equal(t, want[strings.Index(want, " cmd="):], got[strings.Index(got, " cmd="):], "%q", step)
	}
}

// listedAfter sends, on a new connection to addr, the steps of
// clientScript up to and including step last, then returns that
// connection's CLIENT LIST line as another client reads it, and the
// type of the last step's reply (its first byte).
func listedAfter(t *testing.T, addr string, last int) (string, byte) {
	t.Helper()
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	id := strings.TrimSpace(string(a.roundTrip(t, "CLIENT ID\r\n"))[1:])
	var reply []byte
	for _, step := range clientScript[:last+1] {
		reply = a.roundTrip(t, step)
	}
	kind := reply[0]
	list := string(b.roundTrip(t, "CLIENT LIST ID "+id+"\r\n"))
	_, line, ok := strings.Cut(list, "\r\n")
	require.True(t, ok, "%q", list)
	require.True(t, strings.HasPrefix(line, "id="+id+" "), "%q", list)
	_ = a.nc.Close()
	return strings.TrimSuffix(line, "\n\r\n"), kind
}

var fieldName = regexp.MustCompile(`(?:^| )([a-z-]+)=`)

// fieldNames returns the names of a CLIENT LIST line's fields in order.
func fieldNames(line string) []string {
	var names []string
	for _, m := range fieldName.FindAllStringSubmatch(line, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestClientListResp3 lists a client that switched to RESP3 and back,
// with go-redis: resp=3, then resp=2, each read by another client.
func TestClientListResp3(t *testing.T) {
	_, addr := startServer(t, Config{})
	a, b := dial2(t, addr), dial2(t, addr)
	c := ctx(t)
	id := strconv.FormatInt(do(t, a, "CLIENT", "ID").(int64), 10)
	for _, proto := range []string{"3", "2", "3"} {
		require.NoError(t, a.Do(c, "HELLO", proto).Err())
		line := do(t, b, "CLIENT", "LIST", "ID", id).(string)
		assert.True(t, strings.HasSuffix(line, " cmd=hello user=default redir=-1 resp="+proto+"\n"), line)
	}
}
