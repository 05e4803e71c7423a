//go:build linux

package mmapbloom

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
)

// Every kernel this CPU can run is timed against the pure-Go one on the
// same keys in the same process, so that a slow path (such as a kernel
// hit by an SSE/AVX transition penalty on one CPU family) cannot hide on
// machines whose CPUs run a faster kernel by default.

// kernelOp is a batch call that runs the kernels, timed over keys on a
// filter prepared by setup.
type kernelOp struct {
	name  string
	setup func(f *Filter, keys [][]byte) error // from an empty filter
	run   func(f *Filter, keys [][]byte, out []bool) error
}

var kernelOps = []kernelOp{
	{"batch-add", nothing, func(f *Filter, keys [][]byte, _ []bool) error { return f.AddBatch(keys) }},
	{"test-and-add-batch", nothing, (*Filter).TestAndAddBatch},
	{"batch-test", (*Filter).AddBatch, (*Filter).TestBatch},
}

func nothing(*Filter, [][]byte) error { return nil }

// kernelBatch is the number of keys per batch call, as the CLI's.
const kernelBatch = 4096

// timeKernel clears f, prepares it for op, and returns the CPU time of
// this goroutine's thread (time waiting for a core, when other processes
// load the machine, is not counted) op takes over keys (in calls of
// kernelBatch keys) with kern active.
func timeKernel(tb testing.TB, f *Filter, op kernelOp, kern kernel.Kernel, keys [][]byte) time.Duration {
	saved := kernel.Active
	defer func() { kernel.Active = saved }()
	kernel.Active = kern
	require.NoError(tb, f.Clear())
	require.NoError(tb, op.setup(f, keys))
	out := make([]bool, kernelBatch)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU(tb)
	for batch := range slices.Chunk(keys, kernelBatch) {
		require.NoError(tb, op.run(f, batch, out))
	}
	return threadCPU(tb) - start
}

// threadCPU returns the CPU time of the calling thread
// (CLOCK_THREAD_CPUTIME_ID: exact, where getrusage's split into user and
// system time can hold a short interval at 0).
func threadCPU(tb testing.TB) time.Duration {
	var ts unix.Timespec
	require.NoError(tb, unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts))
	return time.Duration(ts.Nano())
}

// BenchmarkKernels times each batch call with each kernel this CPU can
// run, the generic one included: MMAPBLOOM_BENCH_N synthetic URL keys
// into a filter for as many at p = 1e-4, and the 50,000 phishing URLs of
// testdata/phishing-sample.txt.gz into a filter for 62,500 at p = 0.001 (what `mmapbloom
// dedup` does with them is test-and-add-batch). Reports cpu-ns/key,
// the CPU time of the calling thread per key (see timeKernel).
func BenchmarkKernels(b *testing.B) {
	n := benchN(b)
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		benchKernels(b, keysOf(2, n), uint64(n), 1e-4)
	})
	b.Run("keys=phishing-sample", func(b *testing.B) {
		benchKernels(b, testkit.Lines(b, testkit.Testdata(phishingURLs)), 62_500, 0.001)
	})
}

// benchKernels runs every kernel op with every kernel over keys, into a
// filter for n keys at p.
func benchKernels(b *testing.B, keys [][]byte, n uint64, p float64) {
	f := newBenchFilter(b, n, p)
	for _, op := range kernelOps {
		for _, kern := range kernel.Available {
			b.Run(fmt.Sprintf("op=%s/impl=%s", op.name, kern), func(b *testing.B) {
				var total time.Duration
				for b.Loop() {
					total += timeKernel(b, f, op, kern, keys)
				}
				b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*len(keys)), "cpu-ns/key")
			})
		}
	}
}

// phishingURLs is the repository's sample of 50,000 real phishing URLs.
const phishingURLs = "phishing-sample.txt.gz"

// newBenchFilter creates an empty blocked filter for n keys at p.
func newBenchFilter(tb testing.TB, n uint64, p float64) *Filter {
	f, err := Create(tb.TempDir()+"/kernels.bloom", n, p, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = f.Close() })
	return f
}

// TestKernelsNotSlowerThanGeneric fails when a kernel takes more than
// twice the pure-Go time for a batch call on the same keys: a gross
// ratio, far outside timing noise. Each side's figure is the least CPU
// time of several alternating runs, so load from other processes that
// slows some runs does not decide the outcome. Skipped under the race detector.
func TestKernelsNotSlowerThanGeneric(t *testing.T) {
	if len(kernel.Available) == 1 {
		t.Skip("no kernel but the generic one on this CPU")
	}
	if raceEnabled {
		t.Skip("the race detector slows the pure-Go kernel only: no comparison")
	}
	const n, runs, maxRatio = 200_000, 7, 2.0
	keys := keysOf(3, n)
	f := newBenchFilter(t, n, 1e-4)
	for _, kern := range kernel.Available[:len(kernel.Available)-1] {
		for _, op := range kernelOps {
			t.Run(fmt.Sprintf("impl=%s/op=%s", kern, op.name), func(t *testing.T) {
				best := map[kernel.Kernel]time.Duration{}
				for range runs {
					for _, k := range []kernel.Kernel{kernel.Generic, kern} {
						d := timeKernel(t, f, op, k, keys)
						if b, ok := best[k]; !ok || d < b {
							best[k] = d
						}
					}
				}
				ratio := float64(best[kern]) / float64(best[kernel.Generic])
				t.Logf("%s %v, generic %v: %.2fx", kern, best[kern], best[kernel.Generic], ratio)
				require.LessOrEqual(t, ratio, maxRatio, "%s %v against generic %v", kern, best[kern], best[kernel.Generic])
			})
		}
	}
}
