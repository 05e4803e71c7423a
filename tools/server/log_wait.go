package server

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// WAIT numreplicas timeout: with the log, the number of other nodes
// whose durable position (applied and synced, their consumer's ack
// floor) has reached this connection's last acknowledged write on every
// stream it wrote, once numreplicas have or the timeout (ms; 0: none)
// passes, as Redis's WAIT. Without the log there are no acknowledging
// replicas (replicas pull): 0 at once.
func waitCmd(c *client, args [][]byte) {
	n, ms, ok := waitArgs(c, args[1], args[2])
	if !ok {
		return
	}
	if c.s.repl == nil || c.s.repl.log() == nil {
		c.w.WriteInt(0)
		return
	}
	c.w.WriteInt(c.s.repl.waitReplicas(c, n, ms))
}

// WAITAOF numlocal numreplicas timeout: numlocal 1 msyncs every open
// filter first (this node's writes are applied before they are
// answered); then as WAIT, whose replicas count only after their own
// sync. Answers [numlocal synced, replicas], as Redis 7.2.
func waitAOF(c *client, args [][]byte) {
	local, lok := parseInt(args[1])
	if !lok || local < 0 {
		c.w.WriteError("ERR value is out of range, must be positive")
		return
	}
	if local > 1 {
		c.w.WriteError("ERR WAITAOF cannot be used with numlocal > 1: a node has one local store")
		return
	}
	n, ms, ok := waitArgs(c, args[2], args[3])
	if !ok {
		return
	}
	synced := 0
	if local == 1 {
		if err := c.s.syncFilters(); err != nil {
			c.replyErr(err)
			return
		}
		synced = 1
	}
	replicas := 0
	if c.s.repl != nil && c.s.repl.log() != nil {
		replicas = c.s.repl.waitReplicas(c, n, ms)
	}
	c.w.WriteArray(2)
	c.w.WriteInt(synced)
	c.w.WriteInt(replicas)
}

// waitArgs parses numreplicas and timeout, answering Redis's errors.
func waitArgs(c *client, nb, tb []byte) (n int, ms int64, ok bool) {
	v, nok := parseInt(nb)
	ms, tok := parseInt(tb)
	switch {
	case !nok || v < 0:
		c.w.WriteError("ERR value is out of range, must be positive")
	case !tok:
		c.w.WriteError("ERR timeout is not an integer or out of range")
	case ms < 0:
		c.w.WriteError("ERR timeout is negative")
	default:
		return int(v), ms, true
	}
	return 0, 0, false
}

// waitReplicas polls the other nodes' durable positions until n of them
// cover c's writes or ms passes (0: until they do, or shutdown).
func (r *jsRepl) waitReplicas(c *client, n int, ms int64) int {
	ctx, cancel := context.WithCancel(context.Background())
	if ms > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond)
	}
	defer cancel()
	for {
		got := r.replicasCovering(ctx, c.js.last)
		if got >= n || ctx.Err() != nil || r.s.isClosing() {
			return got
		}
		pause := time.NewTimer(10 * time.Millisecond)
		select {
		case <-pause.C:
		case <-ctx.Done():
		}
		pause.Stop()
	}
}

// replicasCovering counts the other nodes whose durable position on
// every stream of last is at least its sequence there.
func (r *jsRepl) replicasCovering(ctx context.Context, last map[int]uint64) int {
	log, count := r.log(), 0
	for _, node := range r.s.cluster.Load().m.Nodes {
		if node.ID == r.s.cfg.NodeID {
			continue
		}
		ok := true
		for st, seq := range last {
			if got, err := log.NodeApplied(ctx, st, node.ID); err != nil || got < seq {
				ok = false
				break
			}
		}
		if ok {
			count++
		}
	}
	return count
}

// isClosing reports whether Shutdown has begun.
func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing.Load()
}

// info is INFO replication's lines of the log: each node's durable
// position summed over the streams it follows (mbf_log_applied_NODE)
// and its lag behind their ends (mbf_log_lag_NODE, in entries; a node
// that never bound a stream it follows counts as at 0 there), both -1
// when a stream's end or the node's position could not be read; and
// this node's applied, recorded and last sequence per stream it
// follows, the sequence it is stopped at (0: applying), its failed
// attempts to apply, its rewinds and stalls (replication.Log.Rewinds,
// Stalls) and the error that stopped it ("" while applying).
func (r *jsRepl) info() [][2]string {
	log := r.log()
	if log == nil {
		return [][2]string{{"mbf_replication", ReplicationJetStream}, {"mbf_log_status", "not open"}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out := [][2]string{{"mbf_replication", ReplicationJetStream}, {"mbf_log_status", "open"},
		{"mbf_log_streams", strconv.Itoa(r.layout.Streams)},
		{"mbf_log_bytes_published", strconv.FormatUint(log.BytesPublished(), 10)}}
	cfg := r.s.cluster.Load().config
	ids := make([]string, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		ids[i] = n.ID
	}
	pos := log.Positions(ctx, ids)
	for _, node := range cfg.Nodes {
		applied, lag := nodeLag(pos, streamsFollowedBy(r.layout, cfg, node), node.ID)
		out = append(out, [2]string{"mbf_log_applied_" + node.ID, strconv.FormatInt(applied, 10)},
			[2]string{"mbf_log_lag_" + node.ID, strconv.FormatInt(lag, 10)})
	}
	for st, sp := range pos {
		if log.Applied(st) > 0 || log.Recorded(st) > 0 || sp.Last > 0 {
			out = append(out, [2]string{"mbf_log_" + fmt.Sprintf("%02d", st), fmt.Sprintf("applied=%d,recorded=%d,last=%d,stopped=%d,apply_errors=%d,rewinds=%d,stalls=%d,error=%s",
				log.Applied(st), log.Recorded(st), sp.Last, log.Stopped(st), log.ApplyErrors(st), log.Rewinds(st), log.Stalls(st), log.FollowerError(st))})
		}
	}
	return out
}

// nodeLag sums node's durable position and its lag over streams, -1
// and -1 when one of them could not be read.
func nodeLag(pos []replication.StreamPositions, streams []int, node string) (applied, lag int64) {
	for _, st := range streams {
		sp := pos[st]
		if sp.Err != nil || sp.NodeErrs[node] != nil {
			return -1, -1
		}
		got := sp.Nodes[node]
		applied, lag = applied+int64(got), lag+int64(sp.Last-min(got, sp.Last))
	}
	return applied, lag
}

// linkStatus is master_link_status of a node on the log: "up" while
// the log is open and every stream this node follows applies (none
// stopped, no error), else "down". There is no link to a primary: the
// node applies the log as every node does.
func (r *jsRepl) linkStatus() string {
	log := r.log()
	if log == nil {
		return "down"
	}
	for _, st := range followedStreams(r.layout, r.s.cluster.Load()) {
		if log.Stopped(st) != 0 || log.FollowerError(st) != "" {
			return "down"
		}
	}
	return "up"
}
