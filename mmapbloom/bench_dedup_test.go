//go:build linux

package mmapbloom

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"
)

// BenchmarkDedupHashes measures dedup's two calls per batch of 1024 keys
// never added before (a filter of n = MMAPBLOOM_BENCH_N, new for each
// run; past n keys the keys repeat and are found present): a test, then
// a claim of the keys found new, hashing each key in both calls
// (hashes=twice: TestBatch, TestAndAddBatch) or once (hashes=passed:
// TestBatchHashes, TestAndAddBatchHashes). ns/op is per key, and
// cpu-ns/op the calling thread's CPU time per key (threadCPU: on a loaded
// machine it leaves out the waits for a core); the difference is the hash
// saved, as the op=hash line measures it.
func BenchmarkDedupHashes(b *testing.B) {
	n := benchN(b)
	keys := keysOf(4, n)
	b.Run(fmt.Sprintf("n=%d/op=hash", n), func(b *testing.B) {
		withThreadCPU(b, func() {
			var x uint64
			for i := range b.N {
				x += xxh3.HashSeed(keys[i%n], 9)
			}
			sinkHash = x
		})
	})
	for _, passed := range []bool{false, true} {
		name := map[bool]string{false: "twice", true: "passed"}[passed]
		b.Run(fmt.Sprintf("n=%d/hashes=%s", n, name), func(b *testing.B) {
			f := newBenchFilter(b, uint64(n), 1e-4)
			withThreadCPU(b, func() { benchDedup(b, f, keys, passed) })
		})
	}
}

// withThreadCPU runs bench on its own thread and reports that thread's
// CPU time per op as cpu-ns/op (threadCPU).
func withThreadCPU(b *testing.B, bench func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU(b)
	bench()
	b.ReportMetric(float64(threadCPU(b)-start)/float64(b.N), "cpu-ns/op")
}

// sinkHash keeps the hashes of BenchmarkDedupHashes from being removed.
var sinkHash uint64

// benchDedup runs dedup's test and claim on batches of keys, b.N keys in
// all, passing the hashes from one call to the other when passed.
func benchDedup(b *testing.B, f *Filter, keys [][]byte, passed bool) {
	const batch = 1024
	seen, claims := make([]bool, batch), make([]bool, batch)
	hashes, newHashes := make([]uint64, batch), make([]uint64, 0, batch)
	newKeys := make([][]byte, 0, batch)
	for done := 0; done < b.N; done += batch {
		from := done % len(keys)
		ks := keys[from:min(from+batch, len(keys), from+b.N-done)]
		var err error
		if passed {
			err = f.TestBatchHashes(ks, seen, hashes)
		} else {
			err = f.TestBatch(ks, seen)
		}
		require.NoError(b, err)
		newKeys, newHashes = newKeys[:0], newHashes[:0]
		for i, present := range seen[:len(ks)] {
			if !present {
				newKeys, newHashes = append(newKeys, ks[i]), append(newHashes, hashes[i])
			}
		}
		if passed {
			err = f.TestAndAddBatchHashes(newKeys, newHashes, claims)
		} else {
			err = f.TestAndAddBatch(newKeys, claims)
		}
		require.NoError(b, err)
	}
}
