package obs

import "sync/atomic"

// Counters is one command's counts (INFO commandstats, latencystats):
// the calls it ran, their time in ns, the calls refused before running
// (arity, authentication, permissions, redirections), the calls that
// answered an error, and the latency of each call tracked.
type Counters struct {
	Calls, Nanos, Rejected, Failed atomic.Int64
	Hist                           Hist
}

// Reset sets every count to 0 (CONFIG RESETSTAT).
func (c *Counters) Reset() {
	c.Calls.Store(0)
	c.Nanos.Store(0)
	c.Rejected.Store(0)
	c.Failed.Store(0)
	c.Hist.Reset()
}
