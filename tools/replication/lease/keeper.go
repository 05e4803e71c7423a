package lease

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Key is one lease a Keeper follows.
type Key struct {
	// Name is the key in the bucket ([-_=.A-Za-z0-9], NATS's rule).
	Name string
	// Candidate makes the keeper's node try to take the lease when no
	// node holds it.
	Candidate bool
	// Preferred makes the node take a free lease at once; other
	// candidates wait one TTL after the keeper starts (Run, or
	// NewKeeper for Step alone), so after a full restart (every lease
	// expired) the preferred node, the one the cluster config names,
	// gets it back when it is up.
	Preferred bool
	// Eligible, when set, is asked at each round: while it returns
	// false this node neither takes the lease nor keeps it (one it
	// holds, or the bucket names it for, is deleted at its revision, so
	// another candidate takes it at once). serve: false while the
	// node's log of the shard is stopped on an apply error.
	Eligible func() bool
}

// eligible reports whether key.Eligible allows this node the lease now.
func (key Key) eligible() bool { return key.Eligible == nil || key.Eligible() }

// Config configures a Keeper.
type Config struct {
	// KV is the lease bucket (OpenBucket), whose entries expire TTL
	// after their last write.
	KV KV
	// Node is this node's id, the value written into the leases it holds.
	Node string
	// TTL is the bucket's entry lifetime (at least MinTTL). The keeper
	// renews every TTL/4 and takes a lease it could not renew as lost
	// at TTL - TTL/4 after the start of its last successful renewal,
	// before any other node can take it (Validity).
	TTL time.Duration
	// Keys are the leases to follow.
	Keys []Key
	// Clock times the renewals. Default RealClock.
	Clock Clock
	// OnChange, when set, is called with the new View each time a
	// holder changes, one call at a time, in the order of the changes.
	OnChange func(View)
	// OnRenew, when set, is called after each renewal try of a held
	// lease (the keeper's and Confirm's) with the time it took on Clock
	// and its error (nil: renewed). Calls for different keys may run
	// concurrently.
	OnRenew func(name string, took time.Duration, err error)
	// OnStepDown, when set, is called each time this node stops holding
	// a lease it held, with the cause: an error wrapping ErrRenewFailed
	// (no renewal succeeded within the lease's validity: how many tries,
	// the last error), ErrLost (the bucket holds another revision: the
	// holder found then, or none), ErrNotEligible (Key.Eligible) or
	// ErrReleased (Release). Calls for different keys may run
	// concurrently.
	OnStepDown func(name string, cause error)
}

// View maps each followed key to its holder as last seen: a node id, or
// "" when no node holds it (expired, never taken, or not known yet
// because the bucket could not be read). A read that fails keeps the
// holder last seen (a loaded or cut-off node keeps routing as it did).
type View map[string]string

// Keeper follows a set of leases: it renews those its node holds, takes
// free ones its node is a candidate for, and reports who holds each.
// Run drives it on its clock, each key on its own schedule; Step does
// one round of every key (tests).
type Keeper struct {
	cfg     Config
	tick    time.Duration
	started time.Time

	keys map[string]*keyState // one per followed key, made by NewKeeper

	notify sync.Mutex // held while the view is updated and OnChange runs

	mu   sync.Mutex
	held map[string]held
	view View
}

// held is a lease this node holds: the revision it wrote and when the
// write that made it began (the entry expires no earlier than TTL after).
type held struct {
	rev     uint64
	renewed time.Time
}

// NewKeeper checks cfg and returns a keeper holding no lease yet. It
// returns an error wrapping ErrBadConfig when the TTL is under MinTTL,
// the node id is empty or KV is nil.
func NewKeeper(cfg Config) (*Keeper, error) {
	if cfg.TTL < MinTTL || cfg.Node == "" || cfg.KV == nil {
		return nil, fmt.Errorf("%w: keeper: ttl %v (at least %v), node %q", ErrBadConfig, cfg.TTL, MinTTL, cfg.Node)
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	keys, view := map[string]*keyState{}, View{}
	for _, key := range cfg.Keys {
		keys[key.Name], view[key.Name] = &keyState{}, ""
	}
	return &Keeper{cfg: cfg, tick: cfg.TTL / 4, started: cfg.Clock.Now(), keys: keys, held: map[string]held{}, view: view}, nil
}

// Tick is the period of Run's rounds: TTL/4.
func (k *Keeper) Tick() time.Duration { return k.tick }

// retry is the pause after a failed renewal before the next try: a
// quarter Tick, so a lease gets about 8 more tries between the first
// failure and the end of its validity.
func (k *Keeper) retry() time.Duration { return k.tick / 4 }

// Run follows every key, each on its own schedule, until ctx ends, then
// releases the leases it holds (so a successor needs not wait for them
// to expire) and returns ctx's error. A key's rounds start every Tick at
// a fixed rate (a round that overruns is followed by the next at once),
// and a failed renewal is tried again every retry (Tick/4) until one
// succeeds or the lease's validity ends; one key's slow bucket
// operation delays no other key. Other candidates' wait for a free
// lease counts from Run's start. Steps must not run concurrently with
// Run.
func (k *Keeper) Run(ctx context.Context) error {
	k.started = k.cfg.Clock.Now()
	var wg sync.WaitGroup
	for _, key := range k.cfg.Keys {
		wg.Go(func() { k.follow(ctx, key) })
	}
	wg.Wait()
	rel, cancel := context.WithTimeout(context.Background(), k.tick)
	k.Release(rel)
	cancel()
	return ctx.Err()
}

// follow does key's rounds until ctx ends: the next one starts a Tick
// after this one started, or retry after it when its renewal failed.
func (k *Keeper) follow(ctx context.Context, key Key) {
	for ctx.Err() == nil {
		start := k.cfg.Clock.Now()
		k.publish(View{key.Name: k.stepKey(ctx, key)})
		wait := start.Add(k.tick).Sub(k.cfg.Clock.Now())
		if k.keys[key.Name].failing() {
			wait = k.retry()
		}
		select {
		case <-ctx.Done():
		case <-k.cfg.Clock.After(wait):
		}
	}
}

// View returns a copy of the holders as last seen.
func (k *Keeper) View() View {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.view)
}

// Holds reports whether this node holds the lease name now.
func (k *Keeper) Holds(name string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.held[name]
	return ok
}

// Step does one round of every key, concurrently: every held lease is
// renewed, every other key read, and a free one taken when this node
// is a candidate. A read or take is bounded by one Tick, a renewal by
// the lease's validity. OnChange sees the result when a holder changed.
func (k *Keeper) Step(ctx context.Context) {
	var (
		mu   sync.Mutex
		next = View{}
		wg   sync.WaitGroup
	)
	for _, key := range k.cfg.Keys {
		wg.Go(func() {
			holder := k.stepKey(ctx, key)
			mu.Lock()
			next[key.Name] = holder
			mu.Unlock()
		})
	}
	wg.Wait()
	k.publish(next)
}

// publish records the holders of update in the view and calls OnChange
// when one changed.
func (k *Keeper) publish(update View) {
	k.notify.Lock()
	defer k.notify.Unlock()
	k.mu.Lock()
	changed := false
	for name, holder := range update {
		changed = changed || k.view[name] != holder
		k.view[name] = holder
	}
	v := maps.Clone(k.view)
	k.mu.Unlock()
	if changed && k.cfg.OnChange != nil {
		k.cfg.OnChange(v)
	}
}

// stepKey does one round for key and returns its holder.
func (k *Keeper) stepKey(ctx context.Context, key Key) string {
	if !k.Holds(key.Name) {
		op, cancel := context.WithTimeout(ctx, k.tick)
		defer cancel()
		return k.observe(op, key)
	}
	if !key.eligible() {
		op, cancel := context.WithTimeout(ctx, k.tick)
		defer cancel()
		k.giveUp(op, key.Name, ErrNotEligible)
		return ""
	}
	ks := k.keys[key.Name]
	ks.renewing.Lock()
	op, cancel := context.WithTimeout(ctx, k.renewTimeout(key.Name))
	err := k.renew(op, key.Name)
	cancel()
	ks.renewing.Unlock()
	if err != nil && !k.Holds(key.Name) {
		return ""
	}
	return k.cfg.Node
}

// renewTimeout bounds a renewal try of name by what remains of the
// lease's validity (a slow bucket operation may still renew it in
// time), and by retry at least.
func (k *Keeper) renewTimeout(name string) time.Duration {
	k.mu.Lock()
	h := k.held[name]
	k.mu.Unlock()
	return max(h.renewed.Add(k.cfg.TTL-k.tick).Sub(k.cfg.Clock.Now()), k.retry())
}

// renew tries once to renew the held lease name; on failure the lease
// stays held until its validity ends (TTL - Tick after its last renewal
// began), then is dropped. The caller holds name's renewing lock. It
// returns an error wrapping ErrLost when this node does not hold the
// lease or finds another revision in the bucket, ErrRenewFailed when
// the lease was dropped at the end of its validity, or the bucket's.
func (k *Keeper) renew(ctx context.Context, name string) error {
	k.mu.Lock()
	h, mine := k.held[name]
	k.mu.Unlock()
	if !mine {
		return fmt.Errorf("%w: %s", ErrLost, name)
	}
	ks := k.keys[name]
	start := k.cfg.Clock.Now()
	rev, err := k.cfg.KV.Update(ctx, name, []byte(k.cfg.Node), h.rev)
	now := k.cfg.Clock.Now()
	if k.cfg.OnRenew != nil {
		k.cfg.OnRenew(name, now.Sub(start), err)
	}
	switch {
	case err == nil:
		ks.tries = 0
		k.setHeld(name, &held{rev: rev, renewed: start})
		return nil
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyExists):
		// Expired and taken, or expired: read it next round.
		err = fmt.Errorf("%w: %s: %s (%w)", ErrLost, name, k.holderNow(ctx, name), err)
		k.stepDown(name, err)
		return err
	}
	ks.tries++
	if now.Sub(h.renewed) < k.cfg.TTL-k.tick {
		return fmt.Errorf("lease: renew %s (try %d): %w", name, ks.tries, err)
	}
	// Its validity ended: the entry may expire on the server before the
	// next try.
	err = fmt.Errorf("%w: %s: after %d tries since the last renewal %v ago: %w", ErrRenewFailed, name, ks.tries,
		now.Sub(h.renewed), err)
	k.stepDown(name, err)
	return err
}

// holderNow describes who holds name in the bucket now, for a step-down
// on a lost compare-and-swap.
func (k *Keeper) holderNow(ctx context.Context, name string) string {
	e, err := k.cfg.KV.Get(ctx, name)
	switch {
	case err == nil:
		return fmt.Sprintf("taken by node %q", e.Value())
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return "expired, no holder"
	}
	return fmt.Sprintf("holder unknown: %v", err)
}

// stepDown forgets the held lease name and reports cause to OnStepDown.
func (k *Keeper) stepDown(name string, cause error) {
	ks := k.keys[name]
	ks.tries = 0
	k.setHeld(name, nil)
	if k.cfg.OnStepDown != nil {
		k.cfg.OnStepDown(name, cause)
	}
}

// observe reads a lease this node does not hold, takes it back when the
// bucket says this node holds it (a restart within the TTL) unless it
// is not eligible (then deletes it), and creates it when free and this
// node may.
func (k *Keeper) observe(ctx context.Context, key Key) string {
	e, err := k.cfg.KV.Get(ctx, key.Name)
	switch {
	case err == nil && string(e.Value()) == k.cfg.Node && !key.eligible():
		_ = k.cfg.KV.Delete(ctx, key.Name, jetstream.LastRevision(e.Revision()))
		if k.cfg.OnStepDown != nil {
			k.cfg.OnStepDown(key.Name, fmt.Errorf("%w: %s: named in the bucket after a restart, deleted", ErrNotEligible, key.Name))
		}
		return ""
	case err == nil && string(e.Value()) == k.cfg.Node:
		return k.acquire(ctx, key.Name, func(ctx context.Context) (uint64, error) {
			return k.cfg.KV.Update(ctx, key.Name, []byte(k.cfg.Node), e.Revision())
		})
	case err == nil:
		return string(e.Value())
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return k.lastSeen(key.Name)
	case !k.mayCreate(key):
		return ""
	}
	return k.acquire(ctx, key.Name, func(ctx context.Context) (uint64, error) {
		return k.cfg.KV.Create(ctx, key.Name, []byte(k.cfg.Node))
	})
}

// lastSeen is the holder of name in the last View, unless it is this
// node (which holds only what it renews).
func (k *Keeper) lastSeen(name string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if h := k.view[name]; h != k.cfg.Node {
		return h
	}
	return ""
}

// mayCreate reports whether this node may take the free lease key now.
func (k *Keeper) mayCreate(key Key) bool {
	return key.Candidate && key.eligible() && (key.Preferred || k.cfg.Clock.Now().Sub(k.started) >= k.cfg.TTL)
}

// acquire runs write (a Create or a revision-checked Update) and holds
// name when it succeeds; it returns the holder as known after it.
func (k *Keeper) acquire(ctx context.Context, name string, write func(context.Context) (uint64, error)) string {
	start := k.cfg.Clock.Now()
	rev, err := write(ctx)
	if err != nil {
		return "" // taken meanwhile, or the bucket unreachable: read next round
	}
	k.setHeld(name, &held{rev: rev, renewed: start})
	return k.cfg.Node
}

// setHeld records h as this node's lease name (nil: not held) and its
// validity.
func (k *Keeper) setHeld(name string, h *held) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys[name].valid.set(h, k.cfg.TTL-k.tick)
	if h == nil {
		delete(k.held, name)
		return
	}
	k.held[name] = *h
}

// Release deletes every lease this node holds, each only at the
// revision it wrote (a lease taken by another node meanwhile stays),
// and forgets them (OnStepDown: ErrReleased), after any renewal in
// flight. Errors are ignored: an undeleted lease expires.
func (k *Keeper) Release(ctx context.Context) {
	for name := range k.keys {
		k.giveUp(ctx, name, ErrReleased)
	}
}

// giveUp deletes the lease name if this node holds it, at the revision
// it wrote, and forgets it (OnStepDown: cause), after any renewal in
// flight. An error is ignored: an undeleted lease expires.
func (k *Keeper) giveUp(ctx context.Context, name string, cause error) {
	ks := k.keys[name]
	ks.renewing.Lock()
	defer ks.renewing.Unlock()
	k.mu.Lock()
	h, mine := k.held[name]
	k.mu.Unlock()
	if mine {
		k.stepDown(name, fmt.Errorf("%w: %s", cause, name))
		_ = k.cfg.KV.Delete(ctx, name, jetstream.LastRevision(h.rev))
	}
}
