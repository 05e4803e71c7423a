package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mmapbloom/mmapbloom/bench/internal/peers"
	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// latencyPool is the number of keys of each pool the calls cycle
// through: spread over the whole filter, so every call misses the caches
// as a call on a random key of a large filter does. Runs of more
// iterations than this add keys already added.
const latencyPool = 1 << 20

// BenchmarkLatency measures, in one process, the machine's random 64-byte
// read over a mapping the size of the filter (dependent: one read in
// flight; independent: overlapped reads; see BenchmarkMemoryLatency) and
// this store's single-key Test (present, absent) and Add and its batch
// Add on the default blocked layout at p = 1e-4, with BENCH_N (default
// 10M) URL-like keys of about 60 bytes:
// BenchmarkLatency/kernel=<k>/n=<N>/{reads=...,op=...}. The kernel is the
// one MMAPBLOOM_KERNEL names (the library reads it at start-up), so
// latency.sh runs one process per kernel and alternates them. The adds
// are of keys never added before, into the filter holding its n keys.
// The reference is mapped with huge pages advised (the machine's best),
// and again without (reads=...-4k: the limit of a mapping in 4 KiB
// pages); the filter as a writer opens it, after the build (which had
// them: see OpenOptions.HugePages). ref-pmd-MiB (on the dependent reads)
// and filter-pmd-MiB (on batch-add, after every call touched the filter)
// say how much of each mapping the kernel maps with 2 MiB pages
// (/proc/self/smaps).
// Each reports cpu-ns/op too, the benchmark thread's CPU time: on a loaded
// machine it leaves out the time the thread waited for a core (a stalled
// read still counts), so latency.sh takes its ratios from it.
func BenchmarkLatency(b *testing.B) {
	n, err := keys.EnvN("BENCH_N")
	if err != nil {
		b.Fatal(err)
	}
	f, path := latencyFilter(b, n)
	size := int(f.Header().ByteSize)
	kern := os.Getenv("MMAPBLOOM_KERNEL")
	if kern == "" {
		kern = "best"
	}
	b.Run("kernel="+kern+"/n="+keys.FormatN(n), func(b *testing.B) {
		ref := filepath.Join(filepath.Dir(path), "memlat.bin")
		words := mappedWordsAdvised(b, ref, size, true)
		chain(words)
		b.Run("reads=dependent", func(b *testing.B) {
			withCPU(b, func() { benchDependent(b, words) })
			b.ReportMetric(pmdMiB(b, ref), "ref-pmd-MiB")
		})
		b.Run("reads=independent", func(b *testing.B) { withCPU(b, func() { benchIndependent(b, words) }) })
		small := mappedWordsAdvised(b, filepath.Join(filepath.Dir(path), "memlat4k.bin"), size, false)
		chain(small)
		b.Run("reads=dependent-4k", func(b *testing.B) { withCPU(b, func() { benchDependent(b, small) }) })
		b.Run("reads=independent-4k", func(b *testing.B) { withCPU(b, func() { benchIndependent(b, small) }) })
		present := spread(keys.Present, 0, uint64(n), latencyPool)
		absent := spread(keys.Absent, 0, uint64(n), latencyPool)
		fresh := spread(keys.Absent, uint64(n), uint64(n)+2*latencyPool, 2*latencyPool)
		// Every page mapped (Stats reads the whole array): no first-touch
		// fault in the timed reads (a 1B-key filter's first million
		// probes otherwise took one each). An add's first write to a page
		// still faults once, as a long-lived writer's does after write-back.
		if _, err := f.Stats(); err != nil {
			b.Fatal(err)
		}
		runtime.GC() // not during the timed loops
		b.Run("op=test-present", func(b *testing.B) { withCPU(b, func() { latencyCalls(b, present, testOnly(f)) }) })
		b.Run("op=test-absent", func(b *testing.B) { withCPU(b, func() { latencyCalls(b, absent, testOnly(f)) }) })
		b.Run("op=add", func(b *testing.B) { withCPU(b, func() { latencyCalls(b, fresh[:latencyPool], f.Add) }) })
		b.Run("op=batch-test", func(b *testing.B) { withCPU(b, func() { latencyBatchTest(b, f, present) }) })
		b.Run("op=batch-add", func(b *testing.B) {
			withCPU(b, func() { latencyBatchAdd(b, f, fresh[latencyPool:]) })
			b.ReportMetric(pmdMiB(b, path), "filter-pmd-MiB") // after every call touched it
		})
	})
}

// latencyFilter builds the blocked filter for n keys at benchP in the
// benchmark's file directory with a Builder (bits set in private memory,
// the file written once: adds through the shared mapping of a file of
// 1B keys had the kernel write it back hundreds of times over, 451 GB in
// 24 minutes), adding the n present keys generated a million at a time
// (50M keys never sit in memory at once), and opens it as a long-lived
// writer does. It returns the filter and its path.
func latencyFilter(b *testing.B, n int) (*mmapbloom.Filter, string) {
	path := filepath.Join(fileDir(b), "latency.bloom")
	opts := &mmapbloom.BuildOptions{CreateOptions: mmapbloom.CreateOptions{Layout: format.LayoutBlocked512, Seed: peers.Seed, FixedSeed: true, Overwrite: true}}
	bld, err := mmapbloom.NewBuilder(path, uint64(n), benchP, opts)
	if err != nil {
		b.Fatal(err)
	}
	const chunk = 1 << 20
	for from := uint64(0); from < uint64(n) && err == nil; from += chunk {
		err = bld.AddBatch(keys.Generate(keys.Present, from, min(from+chunk, uint64(n))).Keys())
	}
	if err != nil {
		_ = bld.Abort()
		b.Fatal(err)
	}
	if err := bld.Finish(); err != nil {
		b.Fatal(err)
	}
	f, err := mmapbloom.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close(); _ = os.Remove(path) })
	return f, path
}

// pmdMiB returns the MiB of this process's mappings of the file at path
// that the kernel maps with 2 MiB pages (FilePmdMapped in
// /proc/self/smaps), 0 where smaps is missing.
func pmdMiB(b *testing.B, path string) float64 {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	kb, in := 0, false
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-"): // a mapping's first line
			in = len(fields) >= 6 && fields[len(fields)-1] == path
		case in && len(fields) == 3 && fields[0] == "FilePmdMapped:":
			v, err := strconv.Atoi(fields[1])
			if err != nil {
				b.Fatal(err)
			}
			kb += v
		}
	}
	return float64(kb) / 1024
}

// spread returns count keys of family fam, indexes spread evenly over
// [from, to), in one buffer.
func spread(fam keys.Family, from, to uint64, count int) [][]byte {
	out := make([][]byte, count)
	buf := make([]byte, 0, count*96) // a key is at most 46+4+20 bytes: buf never moves
	for j := range out {
		start := len(buf)
		buf = keys.AppendURL(buf, fam, from+uint64(j)*(to-from)/uint64(count))
		out[j] = buf[start:len(buf):len(buf)]
	}
	return out
}

// latencyCalls calls call on keys in turn, one key an iteration; for
// adds, the benchmark's iterations should not exceed len(keys), or the
// later adds find their bits set.
func latencyCalls(b *testing.B, keys [][]byte, call func(key []byte) error) {
	i := 0
	for b.Loop() {
		if err := call(keys[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
}

// testOnly is f.Test with its answer dropped, for latencyCalls.
func testOnly(f *mmapbloom.Filter) func(key []byte) error {
	return func(key []byte) error {
		_, err := f.Test(key)
		return err
	}
}

// latencyBatchAdd calls AddBatch on batches of peers.BatchSize keys in
// turn, b.N keys in all (the last batch may be short): ns/op is per key.
func latencyBatchAdd(b *testing.B, f *mmapbloom.Filter, keys [][]byte) {
	latencyBatches(b, keys, f.AddBatch)
}

// latencyBatchTest runs b.N keys of keys (present ones) through TestBatch
// in batches of peers.BatchSize.
func latencyBatchTest(b *testing.B, f *mmapbloom.Filter, keys [][]byte) {
	out := make([]bool, peers.BatchSize)
	latencyBatches(b, keys, func(batch [][]byte) error { return f.TestBatch(batch, out[:len(batch)]) })
}

// latencyBatches calls call on b.N keys of keys in batches of
// peers.BatchSize, cycling through keys.
func latencyBatches(b *testing.B, keys [][]byte, call func([][]byte) error) {
	i := 0
	for done := 0; done < b.N; {
		size := min(peers.BatchSize, b.N-done, len(keys)-i)
		if err := call(keys[i : i+size]); err != nil {
			b.Fatal(err)
		}
		done += size
		if i += size; i == len(keys) {
			i = 0
		}
	}
}

// withCPU runs bench, pinned to its thread, and reports that thread's CPU
// time per op (see threadCPU).
func withCPU(b *testing.B, bench func()) {
	cpu := startThreadCPU()
	bench()
	cpu.report(b)
}
