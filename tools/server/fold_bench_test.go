package server

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkFold measures BF.MADD and BF.MEXISTS of 100 URLs on 4,096
// keys seen:{host}, pipelined 16 deep on one connection, with folding
// (the keys share 64 bucket sets, each item behind its tag) and without
// (a set per key), in the same run. A first pass over the hosts, before
// the benchmark, creates the sets and adds the items (reported as
// first-pass-s, the data directory's entries as files); BF.MADD then
// re-adds present items (the probing work of TestAndAddBatch). ns/op is
// per command (100 items).
func BenchmarkFold(b *testing.B) {
	for _, fold := range []bool{false, true} {
		// Each server lives in its own sub-benchmark, so that the 4,096
		// open sets of the unfolded one are gone when the folded one runs.
		b.Run(fmt.Sprintf("fold=%v", fold), func(b *testing.B) { benchFold(b, fold) })
	}
}

func benchFold(b *testing.B, fold bool) {
	const hosts, perCmd = 4096, 100
	dir := b.TempDir()
	s, err := New(Config{Dir: dir, FilterIdle: -1, Log: log.New(io.Discard, "", 0),
		DefaultCapacity: 10_000, DefaultExpansion: 2, FoldHashtags: fold})
	require.NoError(b, err)
	addr := serveOnB(b, s)
	for _, cmd := range []string{"BF.MADD", "BF.MEXISTS"} {
		reqs := make([]string, hosts)
		for h := range reqs {
			var sb strings.Builder
			key := fmt.Sprintf("seen:{host%d.example}", h)
			fmt.Fprintf(&sb, "*%d\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", perCmd+2, len(cmd), cmd, len(key), key)
			for i := range perCmd {
				item := fmt.Sprintf("https://host%d.example/page/%d", h, i)
				fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(item), item)
			}
			reqs[h] = sb.String()
		}
		start := time.Now()
		sendFold(b, addr, reqs, hosts, perCmd)
		first := time.Since(start).Seconds()
		ents, err := os.ReadDir(dir)
		require.NoError(b, err)
		b.Run("cmd="+cmd, func(b *testing.B) {
			sendFold(b, addr, reqs, b.N, perCmd)
			b.ReportMetric(first, "first-pass-s")
			b.ReportMetric(float64(len(ents)), "files")
		})
	}
}

// sendFold sends n of reqs (in turn) to addr in pipelines of 16 and
// reads their replies, arrays of perCmd integers.
func sendFold(b *testing.B, addr string, reqs []string, n, perCmd int) {
	const depth = 16
	nc := rawConnB(b, addr)
	require.NoError(b, nc.SetDeadline(time.Now().Add(5*time.Minute))) // creating 4,096 sets on ext4 takes over 30 s
	w, r := bufio.NewWriter(nc), bufio.NewReader(nc)
	for i := 0; i < n; i += depth {
		for j := range depth {
			_, _ = w.WriteString(reqs[(i+j)%len(reqs)])
		}
		require.NoError(b, w.Flush())
		for range depth * (perCmd + 1) { // *100, then 100 integers a reply
			if _, err := r.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
}
