package server

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// TestReplyBuf: replyBuf reads the same bytes as redcon's Buffer (the
// field was found, not the fallback).
func TestReplyBuf(t *testing.T) {
	require.GreaterOrEqual(t, bufOffset, 0, "redcon.Writer's b field not found")
	w := redcon.NewWriter(io.Discard)
	assert.Empty(t, replyBuf(w))
	w.WriteInt(1)
	w.WriteError("ERR x")
	w.WriteBulkString("abc")
	assert.Equal(t, w.Buffer(), replyBuf(w))
	assert.Equal(t, ":1\r\n-ERR x\r\n$3\r\nabc\r\n", string(replyBuf(w)))
}
