package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
)

// Benchmarks of this store alone (the comparison with other libraries is
// in the bench module). MMAPBLOOM_BENCH_N sets the number of keys
// (default 1,000,000; the published figures use 10M and 50M).
func benchN(b *testing.B) int {
	n := 1_000_000
	if s := os.Getenv("MMAPBLOOM_BENCH_N"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(b, err)
		n = v
	}
	return n
}

// benchFilter creates a filter for n keys at p = 1e-4 holding keys.
func benchFilter(b *testing.B, layout format.Layout, keys [][]byte) *Filter {
	path := filepath.Join(b.TempDir(), "bench.bloom")
	f, err := Create(path, uint64(len(keys)), 1e-4, &CreateOptions{Layout: layout})
	require.NoError(b, err)
	b.Cleanup(func() { _ = f.Close() })
	require.NoError(b, f.AddBatch(keys))
	return f
}

func BenchmarkProbe(b *testing.B) {
	n := benchN(b)
	present, absent := keysOf(0, n), keysOf(1, n)
	for _, layout := range []format.Layout{format.LayoutBlocked512, format.LayoutClassic} {
		f := benchFilter(b, layout, present)
		for ki, kern := range kernel.Available {
			kernel.Active = kern
			name := fmt.Sprintf("layout=%v/impl=%s/n=%d", layout, kern, n)
			b.Run(name+"/op=test-present", func(b *testing.B) { benchTest(b, f, present) })
			b.Run(name+"/op=test-absent", func(b *testing.B) { benchTest(b, f, absent) })
			b.Run(name+"/op=parallel-test-present", func(b *testing.B) { benchParallelTest(b, f, present) })
			b.Run(name+"/op=batch-test-present", func(b *testing.B) { benchBatchTest(b, f, present) })
			b.Run(name+"/op=batch-test-absent", func(b *testing.B) { benchBatchTest(b, f, absent) })
			// Adds of key families of this kernel's own: with the absent keys,
			// the first kernel's adds set their bits and the next kernels' found
			// them set (no locked OR), which made the first kernel look slower,
			// and the next kernels' test-absent tested keys then present.
			b.Run(name+"/op=add", func(b *testing.B) { benchAdd(b, f, keysOf(byte(2+2*ki), n)) })
			b.Run(name+"/op=batch-add", func(b *testing.B) { benchBatchAdd(b, f, keysOf(byte(3+2*ki), n)) })
		}
		kernel.Active = kernel.Available[0]
	}
}

func benchTest(b *testing.B, f benchTarget, keys [][]byte) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := f.Test(keys[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
}

// benchParallelTest calls Test from GOMAXPROCS goroutines at once, each
// from its own place in keys.
func benchParallelTest(b *testing.B, f benchTarget, keys [][]byte) {
	b.ReportAllocs()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(int64(len(keys)/8))) % len(keys)
		for pb.Next() {
			if _, err := f.Test(keys[i]); err != nil {
				b.Error(err)
				return
			}
			if i++; i == len(keys) {
				i = 0
			}
		}
	})
}

func benchAdd(b *testing.B, f benchTarget, keys [][]byte) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := f.Add(keys[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
}

const benchBatch = 1024

// benchTarget is what the probe benchmarks call: a *Filter or a *Set.
type benchTarget interface {
	Test(key []byte) (bool, error)
	TestBatch(keys [][]byte, present []bool) error
	TestAndAddBatch(keys [][]byte, present []bool) error
	Add(key []byte) error
	AddBatch(keys [][]byte) error
}

func benchBatchTest(b *testing.B, f benchTarget, keys [][]byte) {
	benchBatchCall(b, keys, f.TestBatch)
}

// benchBatchCall calls call on batches of benchBatch keys in turn and
// reports ns/key, and cpu-ns/key: the process's CPU time (user and
// system), which a machine shared with other work inflates less than the
// wall time.
func benchBatchCall(b *testing.B, keys [][]byte, call func(keys [][]byte, present []bool) error) {
	b.ReportAllocs()
	out := make([]bool, benchBatch)
	i := 0
	cpu := cpuTime()
	defer func() {
		b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*benchBatch), "cpu-ns/key")
	}()
	for b.Loop() {
		if i+benchBatch > len(keys) {
			i = 0
		}
		if err := call(keys[i:i+benchBatch], out); err != nil {
			b.Fatal(err)
		}
		i += benchBatch
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/key")
}

func benchBatchAdd(b *testing.B, f benchTarget, keys [][]byte) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i+benchBatch > len(keys) {
			i = 0
		}
		if err := f.AddBatch(keys[i : i+benchBatch]); err != nil {
			b.Fatal(err)
		}
		i += benchBatch
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/key")
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
