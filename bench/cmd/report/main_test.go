package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const raw = `BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=add-2 	5000000	 120.0 ns/op	 2000064 filter-bytes	 0 B/op	 0 allocs/op
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=batch-add-2 	5000	 61440 ns/op	 2000064 filter-bytes	 60.00 ns/key	 40960 B/op	 1 allocs/op
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=test-present-2 	5000000	 40.0 ns/op	 2000064 filter-bytes	 0.0000900 fpr	 0 B/op	 0 allocs/op
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=test-absent-2 	5000000	 45.0 ns/op	 2000064 filter-bytes	 0.0000900 fpr	 0 B/op	 0 allocs/op
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=batch-test-present-2 	5000	 20480 ns/op	 2000064 filter-bytes	 0.0000900 fpr	 20.00 ns/key	 0 B/op	 0 allocs/op
BenchmarkPeers/lib=blobloom/n=1M/op=test-present-2 	5000000	 55.0 ns/op	 3000000 filter-bytes	 0.000130 fpr	 0 B/op	 0 allocs/op
BenchmarkPeers/lib=blobloom/n=1M/op=test-absent-2 	5000000	 50.0 ns/op	 3000000 filter-bytes	 0.000130 fpr	 0 B/op	 0 allocs/op
BenchmarkPeersPhishing/lib=blobloom/n=721839/op=test-absent-2 	5000000	 50.0 ns/op	 3000000 filter-bytes	 0.000130 fpr	 0 B/op	 0 allocs/op
BenchmarkColdStart/lib=mmapbloom/size=1GiB	20	85000 median-ns	120000 max-ns	3000000 process-median-ns	1073741888 filter-bytes
BenchmarkHeapInuse/lib=mmapbloom/size=1GiB	1	400000 heap-open-bytes	400000 heap-query-bytes	1073741888 filter-bytes
BenchmarkColdStart/lib=bitsandblooms/size=114MiB	20	190000000 median-ns	95000000 max-ns	93000000 process-median-ns	119814984 filter-bytes
BenchmarkScale/mode=batch/procs=1	20000000	30000000 adds/s	60 cpu-ns/add
BenchmarkScale/mode=batch/procs=2	20000000	45000000 adds/s	70 cpu-ns/add	1.5 speedup
BenchmarkColdDisk/lib=mmapbloom/op=single-1000/size=1GiB	3	110000000 median-ns	120000000 max-ns	4194304 read-bytes	7340032 peak-rss-bytes	1073741888 filter-bytes
BenchmarkMemoryLatency/reads=dependent-2	7110688	162.9 ns/op
BenchmarkMemoryLatency/reads=independent-2	40310577	27.38 ns/op
`

// TestRun generates the tables from a small raw file and checks that the
// hand-written text around the markers stays.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "B.md")
	require.NoError(t, os.WriteFile(md, []byte("# intro\n"+beginMarker+"\nold\n"+endMarker+"\nafter\n"), 0o644))
	in := filepath.Join(dir, "raw.bench")
	require.NoError(t, os.WriteFile(in, []byte(raw), 0o644))
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("# comment\nscale-batch: two cores, one is busy\n"), 0o644))
	machine := filepath.Join(dir, "machine.txt")
	require.NoError(t, os.WriteFile(machine, []byte("AMD EPYC, 2 cores\n"), 0o644))

	require.NoError(t, run([]string{"-md", md, "-notes", notes, "-machine", machine, "-label", "preliminary", in}))
	b, err := os.ReadFile(md)
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, "# intro\n"+beginMarker+"\n**preliminary**")
	assert.Contains(t, s, "\n"+endMarker+"\nafter\n")
	assert.NotContains(t, s, "\nold\n")
	assert.Contains(t, s, "```text\nAMD EPYC, 2 cores\n```")
	assert.Contains(t, s, "| single-key Test of present keys | <= 100 ns | 40.0 ns (blobloom 55.0) | yes |")
	assert.Contains(t, s, "| batch Add | <= 45 ns/key | 60.0 ns/key | **no** | (no reason given")
	assert.Contains(t, s, "| 2 processes adding to one file (AddBatch) vs 1 | >= 1.6x | 1.50x | **no** | two cores, one is busy |")
	assert.Contains(t, s, "| 2 processes adding to one file (Add) vs 1 | >= 1.6x | - | not measured |")
	assert.Contains(t, s, "0.085 ms median, 0.12 ms max (bits-and-blooms ReadFrom: 114MiB 190 ms)")
	assert.Contains(t, s, "| mmapbloom-blocked | 1.9 MiB | 120 | 40.0 | 45.0 | 60.0 | 20.0 | - | 9.00e-05 | batch-add: 1 (40960) |")
	assert.Contains(t, s, "### Real phishing URLs: 721839 present")
	assert.Contains(t, s, "| batch | 20000000 | 30 M/s | 45 M/s | 1.50x | 60.0 / 70.0 |")
	assert.Contains(t, s, "1M keys, not the 50M of the targets")
	assert.Contains(t, s, "| open + 1,000 single probes | mmapbloom | 1024.0 MiB | 3 | 110 ms | 4.0 MiB | 7.0 MiB |")
	assert.Contains(t, s, "| dependent | 163 |\n| independent | 27.4 |")
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "B.md")
	require.NoError(t, os.WriteFile(md, []byte("no markers\n"), 0o644))
	assert.Error(t, run([]string{"-md", md}), "no markers")
	assert.Error(t, run([]string{"-md", md, filepath.Join(dir, "missing")}))
	bad := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(bad, []byte("no colon\n"), 0o644))
	assert.Error(t, run([]string{"-md", md, "-notes", bad}))
}
