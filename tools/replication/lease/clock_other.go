//go:build !linux

package lease

import "time"

// started is the process's first reading of Go's monotonic clock.
var started = time.Now()

// bootNow is the time elapsed on Go's monotonic clock since the process
// started (not since boot: only differences are used), which may stop
// while the system is suspended.
func bootNow() time.Time { return time.Unix(0, int64(time.Since(started))) }
