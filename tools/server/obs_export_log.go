package server

import (
	"context"
	"path/filepath"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// StreamStats is this node's figures of one stream of the log it
// follows (INFO replication's mbf_log_NN line).
type StreamStats struct {
	// Name is the stream's name (MBF_LOG_NN, with the layout's prefix).
	Name string
	// Applied is the last sequence this node applied; Last the
	// stream's last sequence, LastKnown false when it could not be
	// read (NATS down, no stream leader) within 2 s.
	Applied, Last uint64
	LastKnown     bool
	// Stopped is true while the follower is stopped on a message it
	// failed to apply; ApplyErrors counts its failed attempts.
	Stopped     bool
	ApplyErrors uint64
	// Rewinds counts the times this node lowered its position in the
	// stream because the log no longer held the message there (a power
	// cut of every node lost the log's tail): replication.Log.Rewinds.
	Rewinds uint64
	// Stalls counts the times this node bypassed its consumer of the
	// stream, which delivered nothing for replication.StallAfter while
	// the stream's leader held more, and applied the missing messages
	// from the leader: replication.Log.Stalls.
	Stalls uint64
}

// FSStats is the file system holding one of the node's directories
// (statfs): Free is the bytes available to unprivileged users, Used
// the bytes in use.
type FSStats struct {
	Dir        string // "data" (--dir) or "log" (the embedded nats-server's store, DIR/.nats)
	Free, Used uint64
}

// logStats fills st's figures of the log: this node's streams, and the
// lease holders when failover is on.
func (s *Server) logStats(st *Stats) {
	if s.repl == nil {
		return
	}
	log := s.repl.log()
	if log == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pos := log.Positions(ctx, nil)
	for _, i := range followedStreams(s.repl.layout, s.cluster.Load()) {
		st.Streams = append(st.Streams, StreamStats{Name: s.repl.layout.StreamName(i), Applied: log.Applied(i),
			Last: pos[i].Last, LastKnown: pos[i].Err == nil, Stopped: log.Stopped(i) != 0, ApplyErrors: log.ApplyErrors(i),
			Rewinds: log.Rewinds(i), Stalls: log.Stalls(i)})
	}
}

// leaseHolders is each config primary's lease holder ("" none).
func (f *failover) leaseHolders() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.owners))
	for shard, holder := range f.owners {
		out[shard] = holder
	}
	return out
}

// fsStats is the file systems of the data directory and, with an
// embedded nats-server, of its store; one that cannot be read is left
// out.
func (s *Server) fsStats() []FSStats {
	dirs := [][2]string{{"data", s.cfg.Dir}}
	if s.repl != nil && s.repl.emb != nil {
		dirs = append(dirs, [2]string{"log", filepath.Join(s.cfg.Dir, ".nats")})
	}
	var out []FSStats
	for _, d := range dirs {
		if avail, used, _, err := store.FSBytes(d[1]); err == nil {
			out = append(out, FSStats{Dir: d[0], Free: avail, Used: used})
		}
	}
	return out
}
