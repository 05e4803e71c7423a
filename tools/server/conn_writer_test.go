package server

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// writes is the Write methods of replyWriter with their redcon.Writer
// twins.
type writes struct {
	ours   func(*replyWriter)
	redcon func(*redcon.Writer)
}

// TestReplyWriterBytes: every Write method writes the bytes redcon's
// Writer of the same name writes, Bytes holds them without a copy, and
// Flush sends them.
func TestReplyWriterBytes(t *testing.T) {
	long := strings.Repeat("x", 300)
	for name, w := range map[string]writes{
		"array":           {func(w *replyWriter) { w.WriteArray(3) }, func(w *redcon.Writer) { w.WriteArray(3) }},
		"array -1":        {func(w *replyWriter) { w.WriteArray(-1) }, func(w *redcon.Writer) { w.WriteArray(-1) }},
		"bulk":            {func(w *replyWriter) { w.WriteBulk([]byte("a\r\nb")) }, func(w *redcon.Writer) { w.WriteBulk([]byte("a\r\nb")) }},
		"bulk empty":      {func(w *replyWriter) { w.WriteBulk(nil) }, func(w *redcon.Writer) { w.WriteBulk(nil) }},
		"bulk string":     {func(w *replyWriter) { w.WriteBulkString(long) }, func(w *redcon.Writer) { w.WriteBulkString(long) }},
		"error":           {func(w *replyWriter) { w.WriteError("ERR a\r\nb\nc") }, func(w *redcon.Writer) { w.WriteError("ERR a\r\nb\nc") }},
		"string":          {func(w *replyWriter) { w.WriteString("OK\r\n") }, func(w *redcon.Writer) { w.WriteString("OK\r\n") }},
		"int":             {func(w *replyWriter) { w.WriteInt(-7) }, func(w *redcon.Writer) { w.WriteInt(-7) }},
		"int64 min":       {func(w *replyWriter) { w.WriteInt64(math.MinInt64) }, func(w *redcon.Writer) { w.WriteInt64(math.MinInt64) }},
		"uint64 max":      {func(w *replyWriter) { w.WriteUint64(math.MaxUint64) }, func(w *redcon.Writer) { w.WriteUint64(math.MaxUint64) }},
		"raw":             {func(w *replyWriter) { w.WriteRaw([]byte("%1\r\n")) }, func(w *redcon.Writer) { w.WriteRaw([]byte("%1\r\n")) }},
		"several replies": {func(w *replyWriter) { w.WriteInt(1); w.WriteError("ERR x"); w.WriteBulkString("abc") }, func(w *redcon.Writer) { w.WriteInt(1); w.WriteError("ERR x"); w.WriteBulkString("abc") }},
	} {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			rw := redcon.NewWriter(&want)
			w.redcon(rw)
			ours := newReplyWriter(&got)
			w.ours(ours)
			assert.Equal(t, rw.Buffer(), ours.Bytes())
			require.NoError(t, rw.Flush())
			require.NoError(t, ours.Flush())
			assert.Equal(t, want.String(), got.String())
			assert.Empty(t, ours.Bytes(), "sent")
		})
	}
}

// TestReplyWriterHold: Bytes is the buffer itself, Reset empties it
// keeping its memory, the zero value holds replies without sending
// them, and Flush keeps at most maxHeldReply bytes of memory.
func TestReplyWriterHold(t *testing.T) {
	var w replyWriter
	w.WriteInt(1)
	held := w.Bytes()
	assert.Equal(t, ":1\r\n", string(held))
	w.Reset()
	assert.Empty(t, w.Bytes())
	w.WriteInt(2)
	assert.Equal(t, ":2\r\n", string(held[:4]), "Reset kept the memory")

	var out bytes.Buffer
	big := newReplyWriter(&out)
	big.WriteBulkString(strings.Repeat("x", maxHeldReply))
	require.NoError(t, big.Flush())
	assert.Nil(t, big.Bytes(), "a buffer above maxHeldReply is let go")
	small := newReplyWriter(&out)
	small.WriteInt(1)
	require.NoError(t, small.Flush())
	assert.NotNil(t, small.Bytes(), "a small buffer is kept")
}

// failAfter is a writer that takes n writes, then fails.
type failAfter struct {
	n    int
	sent bytes.Buffer
}

var errSend = errors.New("send failed")

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n == 0 {
		return 0, errSend
	}
	f.n--
	return f.sent.Write(b)
}

// TestReplyWriterFlushError: after a failed send nothing more is sent,
// every Flush returns that error, and the replies held are dropped.
func TestReplyWriterFlushError(t *testing.T) {
	f := &failAfter{n: 1}
	w := newReplyWriter(f)
	w.WriteString("OK")
	require.NoError(t, w.Flush())
	w.WriteInt(1)
	require.ErrorIs(t, w.Flush(), errSend)
	assert.Nil(t, w.Bytes())
	f.n = 10
	w.WriteInt(2)
	require.ErrorIs(t, w.Flush(), errSend)
	assert.Empty(t, w.Bytes())
	assert.Equal(t, "+OK\r\n", f.sent.String())
}

// TestNoReflectOrUnsafe: the server's code imports neither reflect nor
// unsafe (go list's Imports of the package); replies go through
// replyWriter, not through a redcon.Writer's unexported buffer.
func TestNoReflectOrUnsafe(t *testing.T) {
	out, err := testkit.Command(t, "go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	imports := strings.Fields(string(out))
	require.Contains(t, imports, "github.com/tidwall/redcon")
	for _, pkg := range []string{"reflect", "unsafe"} {
		assert.NotContains(t, imports, pkg)
	}
}
