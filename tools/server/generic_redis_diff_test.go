package server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// How a reply of the differential script is compared.
const (
	exact    = iota // byte for byte
	sorted          // an array whose order depends on the server (KEYS): its elements as a set
	pairs           // a flat name-value array in dict order (CONFIG GET): its pairs as a set
	scan0           // SCAN's [cursor, keys]: cursor byte for byte, keys as a set
	skip            // sent to both, reply not compared (HELLO: the servers' names differ)
	keySpecs        // COMMAND INFO: each entry's key specifications (its 9th element) byte for byte
)

// genericScript is one script of requests, sent byte for byte to
// redis-server 7.0 and to the server. Keys hello, hallo, hillo and
// h*llo exist on both (strings there, filters here).
var genericScript = []struct {
	req  string
	mode int
}{
	{"PING\r\n", exact},
	{"*3\r\n$4\r\nPING\r\n$1\r\na\r\n$1\r\nb\r\n", exact},
	{"*1\r\n$7\r\nNOSUCHX\r\n", exact},
	// Globs: KEYS, SCAN MATCH.
	{"KEYS h[ae]llo\r\n", sorted},
	{"KEYS h[^e]llo\r\n", sorted},
	{"KEYS h[a-b]llo\r\n", sorted},
	{"KEYS h[b-a]llo\r\n", sorted},
	{"KEYS h?llo\r\n", sorted},
	{"KEYS h\\*llo\r\n", sorted},
	{"KEYS *\r\n", sorted},
	{"KEYS [\r\n", sorted},
	{"SCAN 0 MATCH h[ae]llo COUNT 1000\r\n", scan0},
	{"SCAN 0 MATCH h[^ae]llo COUNT 1000\r\n", scan0},
	{"DBSIZE\r\n", exact},
	{"EXISTS hello hallo nope\r\n", exact},
	// Inline commands as sdssplitargs splits them.
	{"ECHO \"a\\x41b\\n\"\r\n", exact},
	{"ECHO 'c\\'d'\r\n", exact},
	{"ECHO a\"b c\"\r\n", exact},
	{"ECHO \"\\q\\\"\"\n", exact},
	// CONFIG.
	{"CONFIG SET maxclients 100\r\n", exact},
	{"CONFIG GET maxclients\r\n", exact},
	{"CONFIG GET MAXCLIENTS\r\n", exact},
	{"CONFIG GET MAX[C]LIENTS\r\n", exact},
	{"CONFIG GET maxmemory\r\n", exact},
	{"CONFIG GET maxmemory-policy\r\n", exact},
	{"CONFIG GET cluster-enabled\r\n", exact},
	{"CONFIG GET appendonly\r\n", exact},
	{"CONFIG SET appendfsync sometimes\r\n", exact},
	{"CONFIG SET appendfsync EVERYSEC\r\n", exact},
	{"CONFIG GET appendfsync\r\n", exact},
	{"CONFIG GET save\r\n", exact},
	{"CONFIG GET maxclients maxmemory maxclients\r\n", pairs},
	{"CONFIG GET nosuch\r\n", exact},
	{"CONFIG GET timeout\r\n", exact},
	{"CONFIG SET timeout 0\r\n", exact},
	{"CONFIG SET maxclients 0\r\n", exact},
	{"CONFIG SET maxclients abc\r\n", exact},
	{"CONFIG SET maxclients 100 maxclients 50\r\n", exact},
	{"CONFIG SET maxclients 100 databases 2\r\n", exact},
	{"CONFIG SET databases 2\r\n", exact},
	{"CONFIG SET cluster-enabled yes\r\n", exact},
	{"CONFIG SET timeout -1\r\n", exact},
	{"CONFIG SET nosuch 1\r\n", exact},
	{"CONFIG SET maxclients\r\n", exact},
	{"CONFIG SET maxclients 1 timeout\r\n", exact},
	{"CONFIG GET\r\n", exact},
	{"CONFIG FOO\r\n", exact},
	{"CONFIG\r\n", exact},
	{"CONFIG RESETSTAT\r\n", exact},
	// Connection state.
	{"HELLO 2 SETNAME \"a b\"\r\n", exact},
	{"HELLO 2 AUTH default x SETNAME \"a b\"\r\n", exact},
	{"HELLO 4\r\n", exact},
	{"HELLO abc\r\n", exact},
	{"CLIENT SETNAME \"a b\"\r\n", exact},
	{"CLIENT SETNAME n1\r\n", exact},
	{"MULTI\r\n", exact},
	{"PING\r\n", exact},
	{"RESET\r\n", exact},
	{"EXEC\r\n", exact},
	{"CLIENT GETNAME\r\n", exact},
	{"ASKING\r\n", exact},
	{"RESET extra\r\n", exact},
	{"ASKING extra\r\n", exact},
	{"COMMAND INFO reset asking echo select nosuch\r\n", exact},
	// Key specifications, in RESP2 and RESP3.
	{"COMMAND INFO exists type keys scan dbsize ping\r\n", exact},
	{"COMMAND INFO config|set client|list\r\n", exact},
	{"COMMAND INFO del exists type\r\n", keySpecs},
	{"HELLO 3\r\n", skip},
	{"COMMAND INFO exists type keys scan dbsize ping\r\n", exact},
	{"COMMAND INFO config|set client|list\r\n", exact},
	{"COMMAND INFO del exists type\r\n", keySpecs},
	{"HELLO 2\r\n", skip},
	// Unbalanced quotes: Redis answers and closes the connection.
	{"ECHO \"x\"y\r\n", exact},
}

// Deliberate differences, left out of the script:
//   - SELECT 1, CONFIG GET databases: one database here (16 in Redis).
//   - TYPE: MBbloom-- here (Redis's keys of the script are strings).
//   - CONFIG GET of patterns reaching parameters this server has not
//     (maxmemory*, slowlog-*...), CONFIG HELP's REWRITE line, CONFIG SET
//     maxmemory-policy / proto-max-bulk-len: immutable here, no eviction
//     or bulk limit of Redis's kind to change.
//   - COMMAND COUNT: Redis has many more commands.
//   - COMMAND INFO del: @dangerous here (it removes files); its key
//     specification is compared (keySpecs).

// TestGenericAsRedis sends genericScript byte for byte to Debian's
// redis-server 7.0 and to the server and compares the replies.
func TestGenericAsRedis(t *testing.T) {
	ref := startRedisRef(t)
	// appendfsync no: redis-server runs with --appendonly no.
	_, addr := startServer(t, Config{ClientIdle: -1, AppendFsync: AppendFsyncNo})
	keys := []string{"hello", "hallo", "hillo", "h*llo"}
	for _, k := range keys {
		send(t, ref, "*3\r\n$3\r\nSET\r\n$"+strconv.Itoa(len(k))+"\r\n"+k+"\r\n$1\r\n1\r\n")
		send(t, addr, "*3\r\n$6\r\nBF.ADD\r\n$"+strconv.Itoa(len(k))+"\r\n"+k+"\r\n$1\r\nx\r\n")
	}
	rc, sc := dialRaw(t, ref), dialRaw(t, addr)
	for _, step := range genericScript {
		want, got := rc.roundTrip(t, step.req), sc.roundTrip(t, step.req)
		switch step.mode {
		case exact:
			assert.Equal(t, string(want), string(got), "%q", step.req)
		case sorted:
			assert.ElementsMatch(t, elements(t, want, 1), elements(t, got, 1), "%q", step.req)
		case pairs:
			assert.ElementsMatch(t, elements(t, want, 2), elements(t, got, 2), "%q", step.req)
		case scan0:
			w, g := elements(t, want, 1), elements(t, got, 1)
			require.Len(t, g, 2, "%q", step.req)
			assert.Equal(t, w[0], g[0], "%q", step.req)
			assert.ElementsMatch(t, elements(t, []byte(w[1]), 1), elements(t, []byte(g[1]), 1), "%q", step.req)
		case keySpecs:
			assert.Equal(t, keySpecsOf(t, want), keySpecsOf(t, got), "%q", step.req)
		}
	}
	assert.True(t, rc.closed(t) && sc.closed(t), "both close after unbalanced quotes")
}

// send sends one request on a new connection and reads its reply.
func send(t *testing.T, addr, req string) {
	c := dialRaw(t, addr)
	c.roundTrip(t, req)
}

// rawClient is a connection sending requests as given and reading
// replies as raw RESP2 bytes.
type rawClient struct {
	nc net.Conn
	rd *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawClient {
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, nc.SetDeadline(time.Now().Add(time.Minute)))
	t.Cleanup(func() { _ = nc.Close() })
	return &rawClient{nc: nc, rd: bufio.NewReader(nc)}
}

func (c *rawClient) roundTrip(t *testing.T, req string) []byte {
	_, err := c.nc.Write([]byte(req))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, readReply(c.rd, &out), "%q", req)
	return out.Bytes()
}

// closed reports whether the server closed the connection.
func (c *rawClient) closed(t *testing.T) bool {
	_, err := c.rd.ReadByte()
	return err != nil
}

// readReply copies one RESP2 or RESP3 reply from rd to out.
func readReply(rd *bufio.Reader, out *bytes.Buffer) error {
	line, err := rd.ReadString('\n')
	if err != nil {
		return err
	}
	out.WriteString(line)
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	parts := 0
	switch line[0] {
	case '$', '=', '!': // bulk string, verbatim string, bulk error
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(rd, buf); err != nil {
				return err
			}
			out.Write(buf)
		}
	case '*', '~', '>': // array, set, push
		parts = max(n, 0)
	case '%': // map
		parts = 2 * max(n, 0)
	}
	for range parts {
		if err := readReply(rd, out); err != nil {
			return err
		}
	}
	return nil
}

// keySpecsOf returns the key specifications (the 9th element) of each
// entry of a COMMAND INFO reply, as raw bytes.
func keySpecsOf(t *testing.T, reply []byte) []string {
	rd := bufio.NewReader(bytes.NewReader(reply))
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	var out []string
	for range n {
		_, err := rd.ReadString('\n') // the entry's header: 10 elements
		require.NoError(t, err)
		var spec bytes.Buffer
		for i := range 10 {
			var b bytes.Buffer
			require.NoError(t, readReply(rd, &b))
			if i == 8 {
				spec = b
			}
		}
		out = append(out, spec.String())
	}
	return out
}

// elements splits an array reply into its elements' raw bytes, joined
// in groups of per (per 2: name-value pairs).
func elements(t *testing.T, reply []byte, per int) []string {
	rd := bufio.NewReader(bytes.NewReader(reply))
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, byte('*'), line[0], "an array: %q", reply)
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	var out []string
	for i := 0; i < n; i += per {
		var b bytes.Buffer
		for range per {
			require.NoError(t, readReply(rd, &b))
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}
