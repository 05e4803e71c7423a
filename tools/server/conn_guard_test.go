package server

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// ignoredHeaders are requests holding array headers of count <= 0, and
// the replies redis-server 7.0.15 gives them (observed over raw TCP):
// it ignores such a header, with no reply, and reads on.
var ignoredHeaders = []struct{ in, want string }{
	{"*0\r\n", ""},
	{"*-1\r\n", ""},
	{"*-100\r\n", ""},
	{"*-9223372036854775808\r\n", ""},
	{"*0\r\n*0\r\n*0\r\n", ""},
	{"*0\r\nPING\r\n", "+PONG\r\n"},
	{"*-1\r\nPING\r\n", "+PONG\r\n"},
	{"*0\r\n*1\r\n$4\r\nPING\r\n", "+PONG\r\n"},
	{"PING\r\n*0\r\nPING\r\n", "+PONG\r\n+PONG\r\n"},
	{"*1\r\n$4\r\nPING\r\n*0\r\n*1\r\n$4\r\nPING\r\n", "+PONG\r\n+PONG\r\n"},
	{"*1\r\n$4\r\nPING\r\n*-1\r\nPING\r\n*0\r\n", "+PONG\r\n+PONG\r\n"},
	{"*0\r\n\r\n*0\r\nPING\r\n", "+PONG\r\n"},
	{"*-1\r\n*1\r\n$4\r\nECHO\r\n", "-ERR wrong number of arguments for 'echo' command\r\n"},
	{"*2\r\n$4\r\nECHO\r\n$4\r\n*0\r\n\r\n", "$4\r\n*0\r\n\r\n"}, // a bulk's payload is no header
}

// TestIgnoredArrayHeaders: "*0\r\n", "*-1\r\n" and other counts <= 0,
// alone, before or between commands, get no reply and leave the
// connection open, as on redis-server; the next command is answered.
func TestIgnoredArrayHeaders(t *testing.T) {
	_, addr := startServer(t, Config{})
	const end, endReply = "*2\r\n$4\r\nECHO\r\n$3\r\nend\r\n", "$3\r\nend\r\n"
	for _, tc := range ignoredHeaders {
		nc := rawConn(t, addr)
		_, err := nc.Write([]byte(tc.in + end))
		require.NoError(t, err)
		got := make([]byte, len(tc.want)+len(endReply))
		_, err = io.ReadFull(nc, got)
		require.NoError(t, err, "%q: connection still open", tc.in)
		assert.Equal(t, tc.want+endReply, string(got), "%q", tc.in)
		_ = nc.Close()
	}
}

// TestGuardWithholdsHeaders: the guard drops ignored array headers
// whichever way reads split them (one byte per read here), and gives
// redcon every other byte unchanged.
func TestGuardWithholdsHeaders(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{"*0\r\n", nil},
		{"*-1\r\nPING\r\n", [][]string{{"PING"}}},
		{"PING\r\n*0\r\n*1\r\n$4\r\nECHO\r\n", [][]string{{"PING"}, {"ECHO"}}},
		{"*2\r\n$4\r\nECHO\r\n$4\r\n*0\r\n\r\n*0\r\n", [][]string{{"ECHO", "*0\r\n"}}},
		{"*0\r\n\"a b\" c\r\n*-5\r\n", [][]string{{"a b", "c"}}},
	} {
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(tc.in),
			"bytewise": iotest.OneByteReader(strings.NewReader(tc.in)),
		} {
			g := &guard{r: r, max: 1 << 20}
			var got [][]string
			rd := redcon.NewReader(g)
			for {
				cmds, err := readPipeline(rd)
				if err != nil {
					require.ErrorIs(t, err, io.EOF, "%q %s", tc.in, name)
					break
				}
				for _, cmd := range cmds {
					got = append(got, argStrings(cmd.Args))
				}
			}
			assert.Equal(t, tc.want, got, "%q %s", tc.in, name)
		}
	}
}

// TestGuardManyIgnoredHeaders: a stream of ignored headers larger than
// the request-size limit is no oversized request.
func TestGuardManyIgnoredHeaders(t *testing.T) {
	in := strings.Repeat("*0\r\n", 1<<12) + "PING\r\n"
	g := &guard{r: bytes.NewReader([]byte(in)), max: 1 << 10}
	cmds, err := readPipeline(redcon.NewReader(g))
	require.NoError(t, err)
	require.Len(t, cmds, 1)
	assert.Equal(t, []string{"PING"}, argStrings(cmds[0].Args))
}

func argStrings(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}
