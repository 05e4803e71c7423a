package server

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// BenchmarkPipeline measures one connection sending pipelines of 16
// BF.ADD or BF.EXISTS commands on one key (as redis-benchmark -P 16 does),
// with the server batching each run of them into one batch call or not.
// ns/op is per command; the client allocates nothing, so allocs/pipeline
// (mallocs of the whole process per pipeline of 16) is the server's.
func BenchmarkPipeline(b *testing.B) {
	for _, cmd := range []string{"BF.ADD", "BF.EXISTS"} {
		for _, batch := range []bool{true, false} {
			b.Run(fmt.Sprintf("cmd=%s/batch=%v", cmd, batch), func(b *testing.B) {
				s, err := New(Config{Dir: b.TempDir(), FilterIdle: -1, Log: log.New(io.Discard, "", 0)})
				require.NoError(b, err)
				s.noBatch = !batch
				addr := serveOnB(b, s)
				nc := rawConnB(b, addr)
				r := bufio.NewReader(nc)
				_, err = nc.Write([]byte("BF.RESERVE k 0.01 10000000 NONSCALING\r\n"))
				require.NoError(b, err)
				_, err = r.ReadString('\n')
				require.NoError(b, err)
				name, key := []byte(cmd), []byte("k")
				var req, item []byte
				allocs := countAllocs(b)
				for i := 0; i < b.N; i += 16 {
					req = req[:0]
					for j := range 16 {
						item = strconv.AppendInt(item[:0], int64(i+j), 10)
						req = appendRESP(req, [][]byte{name, key, item})
					}
					if _, err := nc.Write(req); err != nil {
						b.Fatal(err)
					}
					for range 16 {
						if _, err := r.ReadSlice('\n'); err != nil {
							b.Fatal(err)
						}
					}
				}
				allocs()
			})
		}
	}
}

// countAllocs resets b's timer and returns a function reporting the
// mallocs of the process since, per pipeline of 16 commands
// (allocs/pipeline), for benchmarks whose ns/op is per command.
func countAllocs(b *testing.B) func() {
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	return func() {
		b.StopTimer()
		var m1 runtime.MemStats
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64((b.N+15)/16), "allocs/pipeline")
	}
}

// BenchmarkExec measures the server's own work per command, without the
// network: runs of 16 pipelined BF.ADD or BF.EXISTS commands on one
// 120 MB filter (random keys: a cache miss each), batched into one batch
// call or run one by one. ns/op is per command.
func BenchmarkExec(b *testing.B) {
	dir := b.TempDir()
	for _, cmd := range []string{"BF.ADD", "BF.EXISTS"} {
		for _, batch := range []bool{true, false} {
			for _, resp3 := range []bool{false, true} {
				b.Run(fmt.Sprintf("cmd=%s/batch=%v/resp3=%v", cmd, batch, resp3), func(b *testing.B) {
					benchExec(b, dir, cmd, batch, resp3)
				})
			}
		}
	}
}

// benchExec is one case of BenchmarkExec: cmd on one filter, in
// pipelines of 16, batched or not, answered in RESP2 or RESP3.
func benchExec(b *testing.B, dir, cmd string, batch, resp3 bool) {
	s, err := New(Config{Dir: dir, FilterIdle: -1, Log: log.New(io.Discard, "", 0)})
	require.NoError(b, err)
	defer func() { require.NoError(b, s.Shutdown()) }()
	s.noBatch = !batch
	c := &client{s: s, w: newReplyWriter(io.Discard), id: 1, authed: true, resp3: resp3}
	c.user.Store(s.acl.Get("default"))
	s.exec(c, [][]byte{[]byte("BF.RESERVE"), []byte("k"), []byte("0.01"), []byte("100000000"), []byte("NONSCALING")})
	cmds := make([]redcon.Command, 1<<16)
	for i := range cmds {
		cmds[i].Args = [][]byte{[]byte(cmd), []byte("k"), fmt.Appendf(nil, "https://example.com/%d", i*7919)}
	}
	allocs := countAllocs(b)
	for i := 0; i < b.N; i += 16 {
		at := i % len(cmds)
		s.execPipeline(c, cmds[at:at+16])
		c.w.Reset()
	}
	allocs()
}

// BenchmarkExecMExists measures the server's work for BF.MEXISTS of 100
// keys on the 120 MB filter of BenchmarkExec; ns/op is per key.
func BenchmarkExecMExists(b *testing.B) {
	s, err := New(Config{Dir: b.TempDir(), FilterIdle: -1, Log: log.New(io.Discard, "", 0)})
	require.NoError(b, err)
	defer func() { require.NoError(b, s.Shutdown()) }()
	c := &client{s: s, w: newReplyWriter(io.Discard), id: 1, authed: true}
	c.user.Store(s.acl.Get("default"))
	s.exec(c, [][]byte{[]byte("BF.RESERVE"), []byte("k"), []byte("0.01"), []byte("100000000"), []byte("NONSCALING")})
	cmds := make([]redcon.Command, 1<<10)
	for i := range cmds {
		args := [][]byte{[]byte("BF.MEXISTS"), []byte("k")}
		for j := range 100 {
			args = append(args, fmt.Appendf(nil, "https://example.com/%d", (i*100+j)*7919))
		}
		cmds[i].Args = args
	}
	b.ResetTimer()
	for i := 0; i < b.N; i += 100 {
		s.execPipeline(c, cmds[(i/100)%len(cmds):][:1])
		c.w.Reset()
	}
}

// appendRESP appends args as a RESP array of bulk strings.
func appendRESP(out []byte, args [][]byte) []byte {
	out = append(out, '*')
	out = strconv.AppendInt(out, int64(len(args)), 10)
	out = append(out, '\r', '\n')
	for _, a := range args {
		out = append(out, '$')
		out = strconv.AppendInt(out, int64(len(a)), 10)
		out = append(out, '\r', '\n')
		out = append(out, a...)
		out = append(out, '\r', '\n')
	}
	return out
}
