package lease

import "time"

// Clock is the time source of a Keeper: when to renew and when a lease
// not renewed must be taken as lost. Tests inject a manual clock; the
// expiry of entries in the bucket is the NATS server's own.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel receiving the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
