package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/tidwall/redcon"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// applier applies the log's records to this node's store: a record is
// a write command, run as a client would run it (the same folding,
// creation defaults and replies), its reply being the result the
// origin answers its client with.
type applier struct {
	s       *Server
	applied atomic.Uint64 // messages applied, for coalescing syncs
	syncMu  sync.Mutex
	synced  uint64 // applied at the start of the last sync of everything
}

func newApplier(s *Server) *applier { return &applier{s: s} }

// errApplyClosed stops a follower while the store closes: the record is
// applied again after the restart.
var errApplyClosed = errors.New("the store is closing")

// Apply runs recs on this node in order: each run of OpAdd records of
// one key as one batch of adds (applyAdds), each OpCommand as a client
// would run it. results, when asked for, get each record's answer: an
// *addOutcome, or an OpCommand's RESP reply.
func (a *applier) Apply(_ int, _ uint64, _ string, recs []replication.Record, results []any) error {
	lc := &client{s: a.s, w: new(redcon.Writer), authed: true, applying: true}
	lc.user.Store(a.s.acl.get("default"))
	for len(recs) > 0 {
		n := 1
		switch recs[0].Op {
		case replication.OpAdd:
			n = sameKeyAdds(recs)
			applyAdds(lc, recs[:n], results)
		case replication.OpCommand:
			applyCommand(lc, recs[0].Fields, results)
		}
		if recs = recs[n:]; results != nil {
			results = results[n:]
		}
	}
	if a.s.store.isClosed() {
		return errApplyClosed
	}
	a.applied.Add(1)
	return nil
}

// sameKeyAdds is the length of the run of OpAdd records of one key at
// the start of recs.
func sameKeyAdds(recs []replication.Record) int {
	n := 1
	for n < len(recs) && recs[n].Op == replication.OpAdd && bytes.Equal(recs[n].Fields[0], recs[0].Fields[0]) {
		n++
	}
	return n
}

// addOutcome is what an OpAdd record's BF.ADDs answer on the node that
// applied it: item i was present before (present[i]), or refused by a
// full NONSCALING filter (full[i], when full is not nil), or err for
// every item.
type addOutcome struct {
	present, full []bool
	err           error
}

// applyAdds adds the items of recs, OpAdd records of one key, in one
// batch, creating the key with this node's defaults as BF.ADD does, and
// sets results[i] to record i's *addOutcome when results is not nil.
func applyAdds(lc *client, recs []replication.Record, results []any) {
	items := recs[0].Fields[1:]
	if len(recs) > 1 {
		items = nil
		for _, r := range recs {
			items = append(items, r.Fields[1:]...)
		}
	}
	present := make([]bool, len(items))
	var full []bool
	err := lc.use(recs[0].Fields[0], lc.s.autoCreate(), func(b Bloom) (err error) {
		full, err = lc.addEach(b, items, present)
		return err
	})
	if results == nil {
		return
	}
	for i, r := range recs {
		n := len(r.Fields) - 1
		o := &addOutcome{present: present[:n:n], err: err}
		if full != nil {
			o.full, full = full[:n:n], full[n:]
		}
		results[i], present = o, present[n:]
	}
}

// applyCommand runs one OpCommand record as a client would and, when
// results is not nil, sets results[0] to its RESP reply.
func applyCommand(lc *client, args [][]byte, results []any) {
	cmd := lookup(args[0])
	if cmd == nil || !arityOK(cmd.arity, len(args)) {
		lc.w.WriteError(unknownCommand(args))
	} else {
		cmd.run(lc, args)
	}
	if results != nil {
		results[0] = bytes.Clone(replyBuf(lc.w))
	}
	lc.w.SetBuffer(replyBuf(lc.w)[:0])
}

// Sync msyncs every open filter, once for all the streams whose
// records were applied before it started.
func (a *applier) Sync(int) error {
	want := a.applied.Load()
	a.syncMu.Lock()
	defer a.syncMu.Unlock()
	if a.synced >= want {
		return nil
	}
	at := a.applied.Load()
	if err := a.s.syncFilters(); err != nil {
		return err
	}
	a.synced = at
	return nil
}

// Bootstrap pulls the stream's slots from a node that follows it (the
// owner of its first slot, or another primary when that is this node)
// and returns that node's durable position taken before the pull: the
// pulled files hold every entry up to it.
func (a *applier) Bootstrap(ctx context.Context, stream int) (uint64, error) {
	r := a.s.repl
	cs := a.s.cluster.Load()
	first, last := r.layout.SlotsOf(stream)
	peer := bootstrapPeer(cs, first)
	if peer == nil {
		return 0, fmt.Errorf("no other node to bootstrap %s from", replication.StreamName(stream))
	}
	covered, err := r.log().NodeApplied(ctx, stream, peer.ID)
	if err != nil {
		return 0, err
	}
	rdb := redis.NewClient(&redis.Options{Addr: peer.Addr, Username: a.s.cfg.MasterUser, Password: a.s.masterAuth(),
		TLSConfig: a.s.cfg.PullTLS, Protocol: 2, PoolSize: 1, DialTimeout: 5 * time.Second,
		ReadTimeout: 30 * time.Second, DisableIdentity: true})
	defer rdb.Close()
	n, err := a.s.pullAll(ctx, rdb, cs, func(slot int) bool { return first <= slot && slot <= last })
	if err != nil {
		return 0, fmt.Errorf("pull from %s: %w", peer.ID, err)
	}
	a.s.cfg.Log.Printf("replication: %s bootstrapped from %s (%d keys) up to seq %d", replication.StreamName(stream), peer.ID, n, covered)
	return covered, nil
}

// bootstrapPeer is the owner of slot, or when that is this node the
// first other primary in the file.
func bootstrapPeer(cs *clusterState, slot int) *cluster.Node {
	if o := cs.m.Owner(slot); o != nil && o != cs.me {
		return o
	}
	for _, n := range cs.m.Nodes {
		if n != cs.me && n.Primary == nil {
			return n
		}
	}
	return nil
}

// syncAll msyncs every open filter, and reports the failed Syncs of
// the filters closed since the last call (closeEvicted).
func (s *store) syncAll() error {
	s.mu.Lock()
	err := s.takeEvictErr()
	var es []*entry
	for _, e := range s.open {
		if e.b != nil && !e.broken {
			e.refs++
			es = append(es, e)
		}
	}
	s.mu.Unlock()
	for _, e := range es {
		if serr := e.b.Sync(); serr != nil && !errors.Is(serr, mmapbloom.ErrClosed) {
			err = errors.Join(err, serr)
		}
		s.release(e, false)
	}
	return err
}

// isClosed reports whether Close has begun.
func (s *store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
