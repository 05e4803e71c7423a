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
	applied atomic.Uint64 // records applied, for coalescing syncs
	syncMu  sync.Mutex
	synced  uint64 // applied at the start of the last sync of everything
}

func newApplier(s *Server) *applier { return &applier{s: s} }

// errApplyClosed stops a follower while the store closes: the record is
// applied again after the restart.
var errApplyClosed = errors.New("the store is closing")

// Apply runs rec's command on this node and returns its RESP reply.
func (a *applier) Apply(_ int, _ uint64, _ string, rec replication.Record) (any, error) {
	if rec.Op != replication.OpCommand {
		return nil, nil // no other op is written by this version
	}
	var buf bytes.Buffer
	lc := &client{s: a.s, w: redcon.NewWriter(&buf), authed: true, applying: true}
	lc.user.Store(a.s.acl.get("default"))
	cmd := lookup(rec.Fields[0])
	if cmd == nil || !arityOK(cmd.arity, len(rec.Fields)) {
		lc.w.WriteError(unknownCommand(rec.Fields))
	} else {
		cmd.run(lc, rec.Fields)
	}
	if err := lc.w.Flush(); err != nil {
		return nil, err
	}
	if a.s.store.isClosed() {
		return nil, errApplyClosed
	}
	a.applied.Add(1)
	return buf.Bytes(), nil
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

// syncAll msyncs every open filter.
func (s *store) syncAll() error {
	s.mu.Lock()
	var es []*entry
	for _, e := range s.open {
		if e.b != nil && !e.broken {
			e.refs++
			es = append(es, e)
		}
	}
	s.mu.Unlock()
	var err error
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
