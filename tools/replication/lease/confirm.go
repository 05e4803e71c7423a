package lease

import (
	"context"
	"fmt"
	"sync"
)

// keyState is what a Keeper keeps for each key it follows besides its
// holder: the lease's validity, and the renewals of Step and Confirm,
// one at a time.
type keyState struct {
	valid Validity
	// renewing is held by a renewal (Step's or a Confirm round's): two
	// at once would make the second's compare-and-swap fail on the
	// first's revision, and that failure drop the lease.
	renewing sync.Mutex
	// tries counts the failed renewal tries since the lease's last
	// renewal, under renewing.
	tries int

	mu   sync.Mutex
	next *round // the Confirm round callers join now; nil: none waiting
}

// round is one renewal shared by the Confirm calls that joined it.
type round struct {
	done chan struct{}
	err  error
}

// Confirm renews the lease name now and returns nil once a renewal that
// began after the call succeeded: what is read after it was read under
// a lease a quorum of the NATS servers has just confirmed, whatever
// this node's clock did (etcd's ReadIndex confirms its leadership with
// a quorum thus before a read). Calls share renewals: those that arrive
// while one runs all wait for the next, which begins when it ends. It
// returns an error wrapping ErrLost when this node does not hold the
// lease (or lost it then), ctx's error, or the bucket's (the lease then
// stays held until its validity ends, as in Step).
func (k *Keeper) Confirm(ctx context.Context, name string) error {
	ks := k.keys[name]
	if ks == nil {
		return fmt.Errorf("%w: %s is not followed", ErrLost, name)
	}
	r := k.join(name, ks)
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// join returns the round of name's Confirm calls that begins next,
// starting it when none is waiting.
func (k *Keeper) join(name string, ks *keyState) *round {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.next == nil {
		ks.next = &round{done: make(chan struct{})}
		go k.confirmRound(name, ks, ks.next)
	}
	return ks.next
}

// confirmRound renews name for the callers of round r once the renewal
// in flight has ended; callers arriving after it began join the next.
func (k *Keeper) confirmRound(name string, ks *keyState, r *round) {
	ks.renewing.Lock()
	ks.mu.Lock()
	ks.next = nil
	ks.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), k.renewTimeout(name))
	r.err = k.renew(ctx, name)
	cancel()
	ks.renewing.Unlock()
	close(r.done)
}

// failing reports whether the last renewal try of a held lease failed
// (its next try comes after Keeper.retry).
func (ks *keyState) failing() bool {
	ks.renewing.Lock()
	defer ks.renewing.Unlock()
	return ks.tries > 0
}
