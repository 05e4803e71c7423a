package lease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRealClockCounts: RealClock's readings count at least the time Go's
// monotonic clock counts between them.
func TestRealClockCounts(t *testing.T) {
	a := RealClock{}.Now()
	time.Sleep(10 * time.Millisecond)
	b := RealClock{}.Now()
	require.GreaterOrEqual(t, b.Sub(a), 10*time.Millisecond)
}

// BenchmarkRealClockNow is the cost of a read of the lease clock
// (CLOCK_BOOTTIME by the clock_gettime system call on Linux) beside
// time.Now (Go's vDSO read of CLOCK_REALTIME and CLOCK_MONOTONIC).
func BenchmarkRealClockNow(b *testing.B) {
	b.Run("clock=lease", func(b *testing.B) {
		for b.Loop() {
			_ = RealClock{}.Now()
		}
	})
	b.Run("clock=time.Now", func(b *testing.B) {
		for b.Loop() {
			_ = time.Now()
		}
	})
}
