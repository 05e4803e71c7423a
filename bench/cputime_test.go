package bench

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPU measures the CPU time of the benchmark's own thread: on a
// machine shared with other work, wall time counts the time the thread
// waited for a core, CPU time does not. start pins the goroutine to its
// thread and reads the clock; report adds the CPU time per op since then
// as cpu-ns/op (0 where the clock is missing).
type threadCPU struct{ start int64 }

func startThreadCPU() threadCPU {
	runtime.LockOSThread()
	return threadCPU{threadNanos()}
}

func (c threadCPU) report(b *testing.B) {
	b.ReportMetric(float64(threadNanos()-c.start)/float64(b.N), "cpu-ns/op")
	runtime.UnlockOSThread()
}

// threadNanos returns the CPU time of the calling thread
// (CLOCK_THREAD_CPUTIME_ID).
func threadNanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
