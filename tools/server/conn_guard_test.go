package server

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestGuardIgnoresHeaders: the guard drops ignored array headers
// whichever way reads split them (one byte per read here), and frames
// every command around them.
func TestGuardIgnoresHeaders(t *testing.T) {
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
			for {
				cmds, err := g.readPipeline()
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
	cmds, err := g.readPipeline()
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

// TestGuardLargeRequest: a request larger than the guard's buffer grows
// it, whichever way reads split the bytes; the buffer shrinks back once
// the request is done, and the commands around it are framed unchanged.
func TestGuardLargeRequest(t *testing.T) {
	big := strings.Repeat("x", 5*guardBuf)
	in := "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\nPING\r\n"
	for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
		g := &guard{r: r, max: 1 << 20}
		var got [][]string
		for len(got) < 3 {
			cmds, err := g.readPipeline()
			require.NoError(t, err)
			for _, cmd := range cmds {
				got = append(got, argStrings(cmd.Args))
			}
		}
		assert.Equal(t, [][]string{{"PING"}, {"ECHO", big}, {"PING"}}, got)
		_, err := g.readPipeline()
		require.ErrorIs(t, err, io.EOF)
		assert.Len(t, g.buf, guardBuf, "shrunk back")
	}
}

// TestGuardCommandsBeforeError: the commands framed before a protocol
// error are given first, then the error, as redis-server runs them
// before it refuses the rest.
func TestGuardCommandsBeforeError(t *testing.T) {
	g := &guard{r: strings.NewReader("*1\r\n$4\r\nPING\r\nECHO \"a\r\n"), max: 1 << 20}
	cmds, err := g.readPipeline()
	require.NoError(t, err)
	require.Len(t, cmds, 1)
	assert.Equal(t, []string{"PING"}, argStrings(cmds[0].Args))
	_, err = g.readPipeline()
	require.ErrorIs(t, err, errUnbalanced)
}

// TestGuardRequestTooLarge: a request still unfinished past max bytes
// is refused, while a pipeline of many small commands is not.
func TestGuardRequestTooLarge(t *testing.T) {
	g := &guard{r: strings.NewReader("*1000\r\n" + strings.Repeat("$10\r\n0123456789\r\n", 60)), max: 512}
	_, err := g.readPipeline()
	require.ErrorIs(t, err, ErrRequestTooLarge)
	g = &guard{r: strings.NewReader(strings.Repeat("*1\r\n$4\r\nPING\r\n", 1000)), max: 512}
	n := 0
	for {
		cmds, err := g.readPipeline()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		n += len(cmds)
	}
	assert.Equal(t, 1000, n)
}
