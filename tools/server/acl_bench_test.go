package server

import (
	"fmt"
	"io"
	"log"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkACLExists measures one unbatched BF.EXISTS through exec (the
// table lookup, the ACL check, the filter's Test, the reply) as the
// default user (+@all ~*) and as a user with ~seen* -@all +@bloom (a
// verdict and a key pattern), and the check alone for each (c.allowed,
// package acl's User.Allowed): check/exec is the ACL's share of
// BF.EXISTS. Keys of 4 bytes (seen) and of 8 or
// more (seen:urls: the pattern's prefix compared as one word).
func BenchmarkACLExists(b *testing.B) {
	s, err := New(Config{Dir: b.TempDir(), FilterIdle: -1, Log: log.New(io.Discard, "", 0)})
	require.NoError(b, err)
	defer func() { require.NoError(b, s.Shutdown()) }()
	require.NoError(b, s.acl.SetUser("crawler", []string{"on", "nopass", "~seen*", "-@all", "+@bloom"}))
	c := &client{s: s, w: newReplyWriter(io.Discard), id: 1, authed: true}
	c.user.Store(s.acl.Get("default"))
	cmd := s.cmds.lookup([]byte("bf.exists"))
	for _, key := range []string{"seen", "seen:urls"} {
		s.exec(c, [][]byte{[]byte("BF.RESERVE"), []byte(key), []byte("0.01"), []byte("1000000"), []byte("NONSCALING")})
		args := make([][][]byte, 1024)
		for i := range args {
			// clipped as the connection's guard gives arguments (cap = len)
			args[i] = [][]byte{[]byte("BF.EXISTS"), slices.Clip([]byte(key)), fmt.Appendf(nil, "https://example.com/%d", i*7919)}
		}
		for _, name := range []string{"default", "crawler"} {
			c.user.Store(s.acl.Get(name))
			b.Run("key="+key+"/user="+name+"/exec", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					s.exec(c, args[i%len(args)])
					c.w.Reset()
				}
			})
			b.Run("key="+key+"/user="+name+"/check", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if c.allowed(cmd, args[i%len(args)]) != "" {
						b.Fatal("refused")
					}
				}
			})
		}
		c.user.Store(s.acl.Get("default"))
	}
}
