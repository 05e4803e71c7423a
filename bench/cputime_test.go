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

// threadNanos returns the user plus system CPU time of the calling thread.
func threadNanos() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
