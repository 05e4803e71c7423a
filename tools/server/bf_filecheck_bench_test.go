package server

import (
	"fmt"
	"io"
	"log"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkReopenCheck measures one unbatched BF.EXISTS through exec on
// an open key with the check for files replaced behind the server on
// (Config.FileCheck 1 s: an atomic load per command, a stat per key per
// second) and off (negative): on/off is the check's cost.
func BenchmarkReopenCheck(b *testing.B) {
	for _, check := range []struct {
		name  string
		every time.Duration
	}{{"on", DefaultFileCheck}, {"off", -1}} {
		b.Run("check="+check.name, func(b *testing.B) {
			s, err := New(Config{Dir: b.TempDir(), FilterIdle: -1, FileCheck: check.every, Log: log.New(io.Discard, "", 0)})
			require.NoError(b, err)
			defer func() { require.NoError(b, s.Shutdown()) }()
			c := &client{s: s, w: newReplyWriter(io.Discard), id: 1, authed: true}
			c.user.Store(s.acl.Get("default"))
			s.exec(c, [][]byte{[]byte("BF.RESERVE"), []byte("seen"), []byte("0.01"), []byte("1000000")})
			args := make([][][]byte, 1024)
			for i := range args {
				args[i] = [][]byte{[]byte("BF.EXISTS"), []byte("seen"), fmt.Appendf(nil, "https://example.com/%d", i*7919)}
			}
			for i := 0; b.Loop(); i++ {
				s.exec(c, args[i%len(args)])
				c.w.Reset()
			}
		})
	}
}
