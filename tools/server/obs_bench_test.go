package server

import (
	"io"
	"log"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkObserve measures what the statistics add to one command:
// run is a BF.EXISTS-shaped command answering :1 without touching a
// filter, called directly ("bare") or through Server.call ("observed":
// one clock read, the counters, the histogram, the reply's first byte),
// and the batch path's record of 16 commands at once ("batch16", per
// command). Compare the difference with BenchmarkPipeline's and
// BenchmarkExec's ns per command, measured in the same run.
func BenchmarkObserve(b *testing.B) {
	s, err := New(Config{Dir: b.TempDir(), FilterIdle: -1, Log: log.New(io.Discard, "", 0)})
	require.NoError(b, err)
	defer func() { require.NoError(b, s.Shutdown()) }()
	c := &client{s: s, w: newReplyWriter(io.Discard), id: 1, authed: true}
	c.user.Store(s.acl.Get("default"))
	cmd := *s.cmds.lookup([]byte("bf.exists"))
	cmd.run = func(c *client, _ [][]byte) { c.w.WriteInt(1) }
	args := [][]byte{[]byte("BF.EXISTS"), []byte("k"), []byte("https://example.com/")}
	b.Run("bare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cmd.run(c, args)
			c.w.Reset()
		}
	})
	b.Run("observed", func(b *testing.B) {
		c.clock = s.obs.now()
		for i := 0; i < b.N; i++ {
			s.call(c, &cmd, args)
			c.w.Reset()
		}
	})
	b.Run("batch16", func(b *testing.B) {
		c.clock = s.obs.now()
		for i := 0; i < b.N; i += 16 {
			for range 16 {
				cmd.run(c, args)
			}
			s.obs.record(c, &cmd, args, c.lap(), 16, c.w.Bytes())
			c.w.Reset()
		}
	})
}
