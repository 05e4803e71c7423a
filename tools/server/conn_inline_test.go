package server

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSplitArgs: inline lines split as redis-server 7.0.15 splits them
// (rows checked with raw inline requests against it).
func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // nil: unbalanced quotes
	}{
		{`SET k v`, []string{"SET", "k", "v"}},
		{"  a \t b\v\fc  ", []string{"a", "b\v\fc"}},
		{`"a\x41b\n"`, []string{"aAb\n"}},
		{`"\x4"`, []string{"x4"}},
		{`"\q\"\\"`, []string{`q"\`}},
		{`'c\'d'`, []string{"c'd"}},
		{`'a\nb'`, []string{`a\nb`}},
		{`a"b c"`, []string{"ab c"}},
		{`""`, []string{""}},
		{"a\x00b c", []string{"a"}},
		{`"ab`, nil}, {`"a"b`, nil}, {`'a'b`, nil}, {`'ab`, nil}, {"\"a\x00\"", nil},
		{"", []string{}}, {"   ", []string{}},
	} {
		got, ok := splitArgs([]byte(tc.line))
		if tc.want == nil {
			assert.False(t, ok, "%q", tc.line)
			continue
		}
		require.True(t, ok, "%q", tc.line)
		strs := []string{}
		for _, a := range got {
			strs = append(strs, string(a))
		}
		assert.Equal(t, tc.want, strs, "%q", tc.line)
	}
}

// FuzzSplitArgs: no line panics, and arguments written back as "\xHH"
// escapes split back to themselves.
func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{`SET k "a b"`, `'x\'y'`, `"\x41`, "a\x00b", `"a"b`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		args, ok := splitArgs(line)
		if !ok {
			return
		}
		var quoted bytes.Buffer
		for _, a := range args {
			quoted.WriteString(` "`)
			for _, b := range a {
				fmt.Fprintf(&quoted, `\x%02x`, b)
			}
			quoted.WriteString(`"`)
		}
		again, ok := splitArgs(quoted.Bytes())
		require.True(t, ok)
		require.Equal(t, len(args), len(again))
		for i := range args {
			require.Equal(t, args[i], again[i])
		}
	})
}

// TestInlineCommands: inline requests, split across reads and mixed with
// RESP arrays, are answered in order as Redis answers them, up to the
// protocol error that closes the connection. The malformed line is the
// last one sent: bytes the server never reads when it closes would make
// the close a reset, which can drop the replies before it (the 386 run
// of .ci/run failed so, with a PING sent after it).
func TestInlineCommands(t *testing.T) {
	_, addr := startServer(t, Config{})
	nc := rawConn(t, addr)
	req := "ECHO \"a\\x41b\\n\"\r\nECHO 'c\\'d'\r\n*2\r\n$4\r\nECHO\r\n$1\r\nz\r\n\r\n   \nECHO a\"b c\"\r\nECHO \"x\"y\r\n"
	for i := 0; i < len(req); i += 7 { // in pieces: lines span reads
		_, err := nc.Write([]byte(req[i:min(i+7, len(req))]))
		require.NoError(t, err)
	}
	want := "$4\r\naAb\n\r\n$3\r\nc'd\r\n$1\r\nz\r\n$4\r\nab c\r\n-ERR Protocol error: unbalanced quotes in request\r\n"
	assert.Equal(t, want, closedAfter(t, nc))
}
