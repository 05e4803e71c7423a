package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// applier applies the log's records to this node's store: a record is
// a write command, run as a client would run it (the same folding,
// creation defaults and replies), its reply being the result the
// origin answers its client with. A command's error is either that
// result or this node's failure, which stops the stream at the record
// (log_classify.go).
type applier struct {
	s       *Server
	applied atomic.Uint64 // messages applied, for coalescing syncs
	syncMu  sync.Mutex
	synced  uint64 // applied at the start of the last sync of everything
	// limitsOf reads a node's limits (peerLimits.of).
	limitsOf func(ctx context.Context, node string) (string, error)

	mu      sync.Mutex
	partial map[int]partial // by stream: a message whose Apply failed part-way
}

// partial is a message whose records before next were applied (with
// their results) before one failed: its next Apply goes on from there,
// so none of them runs twice (a BF.RESERVE done would answer "item
// exists" the second time). The run of adds that failed runs again
// whole: an item it added before the failure answers 0 (may have been
// added before), as a false positive would.
type partial struct {
	seq     uint64
	next    int
	results []any
}

func newApplier(s *Server, limitsOf func(ctx context.Context, node string) (string, error)) *applier {
	return &applier{s: s, limitsOf: limitsOf, partial: map[int]partial{}}
}

// errApplyClosed stops a follower while the store closes: the record is
// applied again after the restart.
var errApplyClosed = errors.New("the store is closing")

// Apply runs recs on this node in order: each run of OpAdd records of
// one key as one batch of adds (applyAdds), each OpCommand as a client
// would run it. results, when asked for, get each record's answer: an
// *addOutcome, or an OpCommand's RESP reply. It returns the first
// error that is this node's failure (failure), having applied the
// records before it: the log applies the message again, from that
// record.
func (a *applier) Apply(stream int, seq uint64, origin string, recs []replication.Record, results []any) error {
	lc := a.s.applyingClient()
	for i := a.resume(stream, seq, results); i < len(recs); {
		n, err := applyNext(lc, recs[i:], resultsFrom(results, i))
		if err = a.failure(origin, err); err != nil {
			a.keep(stream, partial{seq: seq, next: i, results: slices.Clone(results[:min(i, len(results))])})
			return err
		}
		i += n
	}
	if a.s.store.Closed() {
		return errApplyClosed
	}
	a.applied.Add(1)
	return nil
}

// applyingClient returns the client records are applied as: no
// connection, no user checks (the origin checked them), the default
// user's identity.
func (s *Server) applyingClient() *client {
	lc := &client{s: s, w: new(replyWriter), authed: true, applying: true}
	lc.user.Store(s.acl.Get("default"))
	return lc
}

// applyNext applies recs[0] and the OpAdd records of its key right after
// it (one batch call), as lc; it returns how many records it applied
// and the first error that is not a record's result (a node's failure,
// see applyAdds and applyCommand).
func applyNext(lc *client, recs []replication.Record, results []any) (int, error) {
	switch recs[0].Op {
	case replication.OpAdd:
		n := sameKeyAdds(recs)
		return n, applyAdds(lc, recs[:n], results)
	case replication.OpCommand:
		return 1, applyCommand(lc, recs[0].Fields, results)
	}
	return 1, nil
}

// resultsFrom is results from record i on (nil when results is).
func resultsFrom(results []any, i int) []any {
	if results == nil {
		return nil
	}
	return results[i:]
}

// resume returns the record the message at seq of stream goes on from
// (0, or where its last Apply failed), with the results of the records
// before it copied into results.
func (a *applier) resume(stream int, seq uint64, results []any) int {
	a.mu.Lock()
	p, ok := a.partial[stream]
	delete(a.partial, stream)
	a.mu.Unlock()
	if !ok || p.seq != seq || (results == nil) != (p.results == nil) {
		return 0
	}
	copy(results, p.results)
	return p.next
}

// keep remembers where stream's message p.seq failed.
func (a *applier) keep(stream int, p partial) {
	a.mu.Lock()
	a.partial[stream] = p
	a.mu.Unlock()
}

// failure returns nil when err, met applying a record published by
// origin (a node id), is the record's result (classify), else the error
// that stops the stream here. A limit's refusal is the result where the
// origin is this node, or runs with the same limits (checkOrigin).
func (a *applier) failure(origin string, err error) error {
	switch classify(err) {
	case applyResult:
		return nil
	case applyLimit:
		if origin == a.s.cfg.NodeID {
			return nil
		}
		if cerr := a.s.checkOrigin(origin, a.limitsOf); cerr != nil {
			return fmt.Errorf("%w (%v)", err, cerr)
		}
		return nil
	}
	return err
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
// batch, creating the key with this node's defaults as BF.ADD does,
// sets results[i] to record i's *addOutcome when results is not nil,
// and returns the batch's error.
func applyAdds(lc *client, recs []replication.Record, results []any) error {
	items := recs[0].Fields[1:]
	if len(recs) > 1 {
		items = nil
		for _, r := range recs {
			items = append(items, r.Fields[1:]...)
		}
	}
	present := make([]bool, len(items))
	var full []bool
	err := lc.use(recs[0].Fields[0], lc.s.autoCreate(), func(b store.Bloom) (err error) {
		full, err = lc.addEach(b, items, present)
		return err
	})
	if results == nil {
		return err
	}
	for i, r := range recs {
		n := len(r.Fields) - 1
		o := &addOutcome{present: present[:n:n], err: err}
		if full != nil {
			o.full, full = full[:n:n], full[n:]
		}
		results[i], present = o, present[n:]
	}
	return err
}

// applyCommand runs one OpCommand record as a client would, sets
// results[0] to its RESP reply when results is not nil, and returns the
// first error it answered that is not a record's result (the client's
// applyErr), nil when none.
func applyCommand(lc *client, args [][]byte, results []any) error {
	lc.applyErr = nil
	cmd := lc.s.cmds.lookup(args[0])
	if cmd == nil || !arityOK(cmd.arity, len(args)) {
		lc.w.WriteError(unknownCommand(args))
	} else {
		cmd.run(lc, args)
	}
	if results != nil {
		results[0] = bytes.Clone(lc.w.Bytes())
	}
	lc.w.Reset()
	return lc.applyErr
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

// Bootstrap pulls the stream's slots from another node that applies
// the stream (bootstrapPeers: its owner first), trying each in turn,
// and returns the position that node reported before the pull (its
// applied sequence of the stream, in INFO replication): the pulled
// files hold every entry up to it. It asks the peer itself, not its
// durable consumer, which the peer replaces at each bind and which an
// R1 consumer's server may have lost.
func (a *applier) Bootstrap(ctx context.Context, stream int) (uint64, error) {
	r := a.s.repl
	cs := a.s.cluster.Load()
	peers := bootstrapPeers(r.layout, cs, stream)
	if len(peers) == 0 {
		return 0, fmt.Errorf("no other node applies %s to bootstrap from", a.s.repl.layout.StreamName(stream))
	}
	var errs []error
	for _, peer := range peers {
		covered, n, err := a.pullStream(ctx, cs, peer, stream)
		if err == nil {
			a.s.cfg.Log.Printf("replication: %s bootstrapped from %s (%d keys) up to seq %d", a.s.repl.layout.StreamName(stream), peer.ID, n, covered)
			return covered, nil
		}
		errs = append(errs, fmt.Errorf("from %s: %w", peer.ID, err))
	}
	return 0, errors.Join(errs...)
}

// pullStream asks peer its applied position of stream, then pulls the
// stream's slots from it; it returns that position and the keys pulled.
func (a *applier) pullStream(ctx context.Context, cs *clusterState, peer *cluster.Node, stream int) (uint64, int, error) {
	rdb := redis.NewClient(&redis.Options{Addr: peer.Addr, Username: a.s.cfg.MasterUser, Password: a.s.masterAuth(),
		TLSConfig: a.s.cfg.PullTLS, Protocol: 2, PoolSize: 1, DialTimeout: 5 * time.Second,
		ReadTimeout: 30 * time.Second, DisableIdentity: true})
	defer rdb.Close()
	covered, err := peerApplied(ctx, rdb, stream)
	if err != nil {
		return 0, 0, err
	}
	first, last := a.s.repl.layout.SlotsOf(stream)
	n, err := a.s.pullAll(ctx, rdb, cs, func(slot int) bool { return first <= slot && slot <= last })
	if err != nil {
		return 0, 0, fmt.Errorf("pull: %w", err)
	}
	return covered, n, nil
}

// peerApplied reads a node's applied position of stream from its INFO
// replication (the applied= field of its mbf_log_NN line): an error
// when it has applied nothing of the stream.
func peerApplied(ctx context.Context, rdb *redis.Client, stream int) (uint64, error) {
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return 0, fmt.Errorf("INFO replication: %w", err)
	}
	prefix := fmt.Sprintf("mbf_log_%02d:applied=", stream)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			v, _, _ = strings.Cut(v, ",")
			if seq, err := strconv.ParseUint(v, 10, 64); err == nil && seq > 0 {
				return seq, nil
			}
		}
	}
	return 0, fmt.Errorf("it has applied nothing of stream %d", stream)
}

// bootstrapPeers are the other nodes that apply stream by the config
// file (streamsFollowedBy), the owner of its first slot first.
func bootstrapPeers(l replication.Layout, cs *clusterState, stream int) []*cluster.Node {
	first, _ := l.SlotsOf(stream)
	var peers []*cluster.Node
	for _, n := range cs.config.Nodes {
		if n.ID != cs.me.ID && slices.Contains(streamsFollowedBy(l, cs.config, n), stream) {
			peers = append(peers, n)
		}
	}
	if o := cs.m.Owner(first); o != nil {
		slices.SortStableFunc(peers, func(x, y *cluster.Node) int {
			return cmpBool(y.ID == o.ID, x.ID == o.ID)
		})
	}
	return peers
}

// cmpBool orders false before true.
func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}
