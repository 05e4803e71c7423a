package server

import (
	"reflect"
	"unsafe"

	"github.com/tidwall/redcon"
)

// replyBuf returns the replies w holds, not yet flushed, without a
// copy: redcon's Writer.Buffer copies them, which would make reading a
// command's reply cost the whole pipeline's bytes. It reads the
// Writer's unexported b field, found by name and type when the package
// starts (bufOffset); if redcon's layout changed, it falls back to
// Buffer. The caller only reads the result, before w's next write.
func replyBuf(w *redcon.Writer) []byte {
	if bufOffset < 0 {
		return w.Buffer()
	}
	return *(*[]byte)(unsafe.Add(unsafe.Pointer(w), bufOffset))
}

// bufOffset is the offset of redcon.Writer's b []byte field, -1 when it
// has none.
var bufOffset = func() int {
	f, ok := reflect.TypeFor[redcon.Writer]().FieldByName("b")
	if !ok || f.Type != reflect.TypeFor[[]byte]() {
		return -1
	}
	return int(f.Offset)
}()
