package server

import (
	"bytes"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// FuzzFront feeds arbitrary bytes to the server's front: the guard's
// framing (readPipeline), then the dispatch and every command. It checks that nothing panics,
// that each command read gets exactly one reply, and that no file
// appears outside the data directories; each input runs on a server
// folding hash-tagged keys too.
func FuzzFront(f *testing.F) {
	for _, s := range []string{
		"*3\r\n$6\r\nBF.ADD\r\n$1\r\nk\r\n$1\r\na\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\nPING\r\n",
		"*4\r\n$10\r\nBF.RESERVE\r\n$4\r\n../x\r\n$4\r\n0.01\r\n$3\r\n100\r\n",
		"*5\r\n$9\r\nBF.INSERT\r\n$1\r\nk\r\n$10\r\nNONSCALING\r\n$5\r\nITEMS\r\n$1\r\nz\r\n",
		"*3\r\n$9\r\nBF.MEXISTS\r\n$1\r\nk\r\n$1\r\na\r\n",
		"*-1\r\n", "*0\r\nPING\r\n*-1\r\n*1\r\n$4\r\nPING\r\n*0\r\n", "*-0\r\n", "*01\r\n", "$-5\r\n", "*1\r\n$9223372036854775806\r\n", "*1\r\n$1099511627776\r\n",
		"*3\r\n$6\r\nBF.ADD\r\n$3\r\n\x00/x\r\n$0\r\n\r\n",
		"\"unbalanced", "bf.add k 'a b' \"c\\x41\"\r\n", "\r\n\r\n",
		"*2\r\n$4\r\nSCAN\r\n$1\r\n0\r\n*1\r\n$6\r\nDBSIZE\r\n*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n",
		"*3\r\n$11\r\nBF.SCANDUMP\r\n$1\r\nk\r\n$1\r\n0\r\n",
		// a name bytes.EqualFold matched to BF.EXISTS (U+017F folds to s)
		// but the table does not know: once batched on a nil command
		"*3\r\n$10\r\nBF.EXI\xc5\xbfTS\r\n$1\r\nk\r\n$1\r\na\r\n*3\r\n$10\r\nBF.EXI\xc5\xbfTS\r\n$1\r\nk\r\n$1\r\nb\r\n",
		"*4\r\n$7\r\nBF.MADD\r\n$8\r\nk{a/..}\r\n$1\r\nx\r\n$1\r\ny\r\n*2\r\n$7\r\nBF.CARD\r\n$4\r\n{a}k\r\n",
	} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	var servers []*Server
	for _, fold := range []bool{false, true} {
		dir := filepath.Join(root, "data-fold="+strconv.FormatBool(fold))
		require.NoError(f, os.Mkdir(dir, 0o755))
		cfg := Config{Dir: dir, DefaultCapacity: 100, FilterIdle: -1, Log: log.New(io.Discard, "", 0)}
		if fold {
			cfg.FoldHashtags, cfg.DefaultExpansion = true, 2
		}
		s, err := New(cfg)
		require.NoError(f, err)
		f.Cleanup(func() { require.NoError(f, s.Shutdown()) })
		servers = append(servers, s)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range servers {
			frontOnce(t, s, data)
		}
		ents, err := os.ReadDir(root)
		require.NoError(t, err)
		require.Len(t, ents, len(servers), "only the data directories in their parent")
	})
}

// frontOnce runs data through s's front as one connection would.
func frontOnce(t *testing.T, s *Server, data []byte) {
	var out bytes.Buffer
	c := &client{s: s, w: newReplyWriter(&out), id: 1, authed: true}
	c.user.Store(s.acl.Get("default"))
	c.in = &guard{r: bytes.NewReader(data), max: 1 << 20}
	for !c.quit {
		cmds, err := c.in.readPipeline()
		if err != nil {
			break
		}
		cmds = harmless(cmds)
		s.execPipeline(c, cmds)
		require.NoError(t, c.w.Flush())
		require.Equal(t, len(cmds), countReplies(t, out.Bytes()), "one reply per command")
		out.Reset()
	}
}

// harmless drops the commands that would make large files (a fuzzed
// capacity or error rate can ask for gigabytes) and stops at QUIT.
func harmless(cmds []redcon.Command) []redcon.Command {
	out := cmds[:0]
	for _, cmd := range cmds {
		big := false
		for _, a := range cmd.Args[1:] {
			if v, err := strconv.ParseFloat(string(a), 64); err == nil && (v > 1e4 || (v > 0 && v < 1e-4)) {
				big = true
			}
		}
		if !big {
			out = append(out, cmd)
		}
	}
	return out
}

// countReplies counts the complete RESP replies in b, failing on bytes
// that are not one.
func countReplies(t *testing.T, b []byte) int {
	n := 0
	for len(b) > 0 {
		size, resp := redcon.ReadNextRESP(b)
		require.NotZero(t, size, "not a RESP reply: %q", b)
		_ = resp
		b = b[size:]
		n++
	}
	return n
}
