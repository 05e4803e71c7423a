package server

import (
	"io"

	"github.com/tidwall/redcon"
)

// replyWriter holds a connection's replies until Flush sends them: the
// Write methods of redcon.Writer that the server calls, each encoding
// with redcon's Append function of the same name (the same bytes), and
// Bytes, the replies held, without redcon's copy (a command's reply is
// read where it ends: the observer's record, a replicated command's
// answer). RESP3's types are written through WriteRaw (conn_resp3.go).
// The zero value holds replies and never sends them (a replica's
// applier, a logged write's immediate answer).
type replyWriter struct {
	w   io.Writer
	b   []byte
	err error // of the first Flush that failed: nothing is sent after it
}

// maxHeldReply is the capacity above which Flush lets the buffer go
// rather than keep it for the next replies (redcon's maxBufferCap).
const maxHeldReply = 256 << 10

// newReplyWriter returns a writer sending its replies to w.
func newReplyWriter(w io.Writer) *replyWriter { return &replyWriter{w: w} }

// WriteArray writes an array header of count items (the items follow).
func (w *replyWriter) WriteArray(count int) { w.b = redcon.AppendArray(w.b, count) }

// WriteBulk writes a bulk string.
func (w *replyWriter) WriteBulk(bulk []byte) { w.b = redcon.AppendBulk(w.b, bulk) }

// WriteBulkString writes a bulk string.
func (w *replyWriter) WriteBulkString(bulk string) { w.b = redcon.AppendBulkString(w.b, bulk) }

// WriteError writes an error reply: "-" and msg, its line breaks
// replaced by spaces.
func (w *replyWriter) WriteError(msg string) { w.b = redcon.AppendError(w.b, msg) }

// WriteString writes a simple string: "+" and msg, its line breaks
// replaced by spaces.
func (w *replyWriter) WriteString(msg string) { w.b = redcon.AppendString(w.b, msg) }

// WriteInt writes an integer.
func (w *replyWriter) WriteInt(num int) { w.b = redcon.AppendInt(w.b, int64(num)) }

// WriteInt64 writes an integer.
func (w *replyWriter) WriteInt64(num int64) { w.b = redcon.AppendInt(w.b, num) }

// WriteUint64 writes an integer.
func (w *replyWriter) WriteUint64(num uint64) { w.b = redcon.AppendUint(w.b, num) }

// WriteRaw writes data as it is: replies encoded already.
func (w *replyWriter) WriteRaw(data []byte) { w.b = append(w.b, data...) }

// Bytes returns the replies held, not a copy: valid until the next
// Write, Reset or Flush, and only to be read.
func (w *replyWriter) Bytes() []byte { return w.b }

// Reset drops the replies held, keeping the buffer.
func (w *replyWriter) Reset() { w.b = w.b[:0] }

// Flush sends the replies held and drops them. After a failed send it
// sends nothing more and returns that error.
func (w *replyWriter) Flush() error {
	if w.err == nil {
		_, w.err = w.w.Write(w.b)
	}
	if cap(w.b) > maxHeldReply || w.err != nil {
		w.b = nil
	} else {
		w.b = w.b[:0]
	}
	return w.err
}
