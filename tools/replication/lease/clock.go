package lease

import "time"

// Clock is the time source of a Keeper: when to renew, and how long ago
// a renewal began. Tests inject a manual clock; the expiry of entries in
// the bucket is the NATS server's own.
type Clock interface {
	// Now returns the current time. Only differences between two
	// readings are used, and they must count every moment since the
	// first, the system's suspends included (RealClock reads
	// CLOCK_BOOTTIME): a lease's validity is its last renewal's reading
	// plus TTL - TTL/4.
	Now() time.Time
	// After returns a channel receiving the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system clock: Now reads the time since boot
// (bootNow), After is Go's timer.
type RealClock struct{}

// Now returns the time since boot as a time.Time counted from the Unix
// epoch (not the wall time: only differences mean something). On Linux
// it is CLOCK_BOOTTIME, which also runs while the system is suspended
// (Go's monotonic clock, CLOCK_MONOTONIC, stops then; clock_gettime(2)),
// read by the clock_gettime system call (x/sys/unix does not go through
// the vDSO: about 0.5 µs on a loaded 2-core VM, see the package's
// BenchmarkRealClockNow); elsewhere the time elapsed on Go's monotonic
// clock since the process started.
func (RealClock) Now() time.Time { return bootNow() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
