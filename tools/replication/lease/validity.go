package lease

import (
	"sync/atomic"
	"time"
)

// Validity is how long this node may still act as the holder of one
// lease: until TTL - TTL/4 after the start of its last successful write
// of it (a take or a renewal), on the keeper's Clock. That is the bound
// at which the keeper drops a lease it could not renew, and it falls
// before any other node can take the lease: the entry expires TTL after
// the NATS server stored that write, which is after the write began.
// The keeper sets it on every successful write and clears it when the
// lease is lost or released; ValidAt reads it without a lock.
//
// The bound holds whatever stopped this node meanwhile (a process
// stopped, a garbage collection or swap storm, a suspended system on
// CLOCK_BOOTTIME) as long as the clock kept counting. It tolerates this
// node's clock running up to 25% slower than the NATS servers' (it
// measures TTL - TTL/4 where they measure TTL); the clocks' readings are
// never compared between nodes.
type Validity struct {
	until atomic.Int64 // Clock reading (UnixNano) from which the lease is no longer valid; 0: not held
}

// ValidAt reports whether the lease is valid at now, a reading of the
// keeper's Clock.
func (v *Validity) ValidAt(now time.Time) bool { return now.UnixNano() < v.until.Load() }

// set records h, the lease as its last successful write left it, valid
// for bound after that write began (h nil: the lease is not held).
func (v *Validity) set(h *held, bound time.Duration) {
	if h == nil {
		v.until.Store(0)
		return
	}
	v.until.Store(h.renewed.Add(bound).UnixNano())
}

// Validity returns the validity of lease name, which the keeper keeps
// up to date; nil when the keeper does not follow name.
func (k *Keeper) Validity(name string) *Validity {
	if ks := k.keys[name]; ks != nil {
		return &ks.valid
	}
	return nil
}
