package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/lease"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// Replication through NATS JetStream (Config.Replication "jetstream"):
// every write command of a slot this node owns is published to the
// slot's stream and answered once this node has read it back from the
// log and applied it there; every node applies the streams of the
// slots it serves (followedStreams). The log itself is package
// replication; this file starts it, log_write.go
// publishes, log_apply.go applies, and
// log_wait.go answers WAIT, WAITAOF and INFO replication.

// ReplicationJetStream is Config.Replication's value for the log.
const ReplicationJetStream = "jetstream"

// ReplicationConfig is the log's settings.
type ReplicationConfig struct {
	// NATSURLs, when set, are an external NATS cluster's client URLs;
	// otherwise each node embeds a nats-server whose routes listen on
	// its cluster config line's nats=HOST:PORT, storing under DIR/.nats.
	NATSURLs []string
	// NATSAuth is the external cluster's credentials and TLS (with
	// NATSURLs; serve's --nats-creds-file, --nats-nkey-file,
	// --nats-user, --nats-password-file, --nats-tls).
	NATSAuth replication.ClientAuth
	// NATSMonitorAddr, when set, is HOST:PORT of the embedded
	// nats-server's HTTP monitoring endpoint
	// (replication.EmbeddedConfig.MonitorAddr; serve's
	// --nats-monitor-addr). Default: off.
	NATSMonitorAddr string
	// NATSCluster is the embedded servers' NATS cluster name. Default
	// replication.ClusterName.
	NATSCluster string
	// NATSSecret, when set, is the cluster secret the embedded servers'
	// routes and clients must give (replication.EmbeddedConfig.Secret;
	// serve's --nats-secret-file). Empty: the route port admits anyone
	// who reaches it.
	NATSSecret string
	// NATSTLS, when set, is mutual TLS on the embedded servers' routes
	// and client port (TLSFiles.PeerConfig; serve's --nats-tls).
	NATSTLS *tls.Config
	// Prefix names the log's streams, subjects and buckets
	// (replication.Layout.Prefix). Default replication.DefaultPrefix.
	Prefix string
	// Streams is the number of streams (a power of two, 1 to 256).
	// Default DefaultReplicationStreams.
	Streams int
	// MaxAge and MaxBytes bound each stream (0: no bound; else at least
	// replication.MinMaxAge and MinMaxBytes). A node that falls behind
	// them bootstraps from a peer with a pull.
	MaxAge   time.Duration
	MaxBytes int64
	// PublishTimeout bounds the wait for a PubAck (then -TRYAGAIN).
	// Default 5 s.
	PublishTimeout time.Duration
	// SyncAlways fsyncs every write of the embedded JetStream store;
	// without it the store follows Config.AppendFsync (logSync).
	SyncAlways bool
	// StartTimeout bounds the wait for the cluster to form at start.
	// Default 60 s.
	StartTimeout time.Duration
	// LeaseTTL, when positive, turns on failover with leases on the
	// log's NATS (log_failover.go): a shard whose owner stops
	// renewing is taken by another node applying its log after at most
	// LeaseTTL + LeaseTTL/4, plus its drain and NATS's elections. At
	// least lease.MinTTL; 0: no failover, the config file decides. The
	// command's default is DefaultLeaseTTL.
	LeaseTTL time.Duration
	// ConfirmReads is Failover.ConfirmReads of the leases (serve's
	// --lease-read confirm): a read of a shard waits for a renewal of
	// its lease that began after it. Default false: a read is served
	// while the lease is valid on this node's clock.
	ConfirmReads bool
}

// DefaultReplicationStreams is ReplicationConfig.Streams' default.
const DefaultReplicationStreams = 16

// ErrReplication is returned (wrapped) for a bad replication setup.
var ErrReplication = errors.New("replication")

// jsRepl is a node's replication state.
type jsRepl struct {
	s      *Server
	emb    *replication.Embedded
	layout replication.Layout
	apply  *applier
	// limits publishes this node's limits and reads the others'
	// (log_limits.go).
	limits *peerLimits
	// ready holds the log once open (openLoop); writes get -TRYAGAIN
	// before.
	ready atomic.Pointer[replication.Log]
	// leases, when failover is on, gets the log once open, and the
	// lease keeper starts then.
	leases *logLeases
	// rebuilt holds, by stream, the rebuild of a stream whose damaged
	// file this node moved aside at its start (rebuildDamaged); the map
	// is read-only, each end set once (rebuildEnds).
	rebuilt map[int]*rebuild
	stop    chan struct{}
	stopped chan struct{}
}

// errLogNotReady answers writes while the log is not open yet.
var errLogNotReady = errors.New("the replication log is not open yet (waiting for the NATS cluster)")

// startJetStream starts the embedded nats-server (unless external URLs
// are given) and opens the log in the background: the cluster forms
// only once enough nodes run, so a node must not wait for it to listen.
// leases, when not nil, get the log once it is open, and the failover
// starts then.
func (s *Server) startJetStream(cs *clusterState, leases *logLeases) (*jsRepl, error) {
	rc := &s.cfg.Replicate
	if len(cs.m.Nodes) < 3 {
		s.cfg.Log.Printf("replication: %d nodes: with fewer than 3, the loss of one node stops the writes (no quorum) and no failover can happen", len(cs.m.Nodes))
	}
	layout := replication.Layout{Prefix: rc.Prefix, Streams: rc.Streams, Replicas: min(3, len(cs.m.Nodes)), MaxAge: rc.MaxAge, MaxBytes: rc.MaxBytes}
	posDir := filepath.Join(s.cfg.Dir, ".replication")
	rebuilt, err := s.rebuildDamaged(layout, posDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplication, err)
	}
	r := &jsRepl{s: s, layout: layout, leases: leases, rebuilt: rebuilt, stop: make(chan struct{}), stopped: make(chan struct{})}
	urls, auth := rc.NATSURLs, rc.NATSAuth
	if len(urls) == 0 {
		emb, err := startEmbedded(s.cfg, cs)
		if err != nil {
			return nil, err
		}
		r.emb, urls, auth = emb, []string{emb.ClientURL()}, emb.Client()
	}
	r.limits = newPeerLimits(r)
	r.apply = newApplier(s, r.limits.of)
	go r.openLoop(replication.Config{URLs: urls, Auth: auth, Node: s.cfg.NodeID, Layout: r.layout,
		Dir: posDir, PublishTimeout: rc.PublishTimeout, StartTimeout: rc.StartTimeout,
		Logf: s.cfg.Log.Printf},
		followedStreams(r.layout, cs))
	return r, nil
}

// openLoop opens the log, retrying until it opens or the server stops,
// then follows streams, starts the failover and publishes this node's
// limits (peerLimits).
func (r *jsRepl) openLoop(cfg replication.Config, streams []int) {
	defer close(r.stopped)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		log, err := replication.OpenContext(ctx, cfg)
		if err == nil {
			r.ready.Store(log) // before Follow: a bootstrap uses it
			go r.rebuildEnds(ctx, log)
			log.Follow(streams, r.apply)
			r.s.cfg.Log.Printf("replication: log open, following %d of %d streams", len(streams), r.layout.Streams)
			if r.leases != nil {
				r.leases.attach(log)
				r.s.runFailover()
				r.s.cfg.Log.Printf("replication: failover on leases of %v", r.s.cfg.Replicate.LeaseTTL)
			}
			r.limits.publishLoop(ctx)
			return
		}
		if ctx.Err() != nil {
			return
		}
		r.s.cfg.Log.Printf("replication: %v (retrying)", err)
		select {
		case <-r.stop:
			return
		case <-time.After(time.Second):
		}
	}
}

// log is the open log, or nil before it opens.
func (r *jsRepl) log() *replication.Log { return r.ready.Load() }

// startEmbedded starts this node's nats-server, routed to every node's
// nats= address, with the cluster name, secret and TLS of cfg.
func startEmbedded(cfg Config, cs *clusterState) (*replication.Embedded, error) {
	if cs.me.NATS == "" {
		return nil, fmt.Errorf("%w: node %s has no nats=HOST:PORT in the cluster config (or give --nats-url)", ErrReplication, cs.me.ID)
	}
	rc := cfg.Replicate
	if host, _, err := net.SplitHostPort(cs.me.NATS); err == nil && !loopback(host) && rc.NATSSecret == "" && rc.NATSTLS == nil {
		cfg.Log.Printf("replication: WARNING: the NATS route port %s admits any server that reaches it (it can join the cluster and read, write or delete the log): give --nats-secret-file or --nats-tls, or firewall it (docs/security.md)", cs.me.NATS)
	}
	var routes []string
	for _, n := range cs.m.Nodes {
		if n.NATS != "" {
			routes = append(routes, n.NATS)
		}
	}
	always, interval := logSync(cfg)
	emb, err := replication.StartEmbedded(replication.EmbeddedConfig{Name: cfg.NodeID,
		StoreDir: filepath.Join(cfg.Dir, ".nats"), RouteAddr: cs.me.NATS, Routes: routes,
		SyncAlways: always, SyncInterval: interval, Cluster: rc.NATSCluster, Secret: rc.NATSSecret, TLS: rc.NATSTLS,
		MonitorAddr: rc.NATSMonitorAddr, Logf: cfg.Log.Printf})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReplication, err)
	}
	return emb, nil
}

// followedStreams are the streams holding a slot this node serves in
// the config file: its own, its primary's (a replica-of line), and
// those of the two primaries before it in the file (a ring: this node
// is one of their Successors), so that each slot range is applied on
// min(3, nodes) nodes.
func followedStreams(l replication.Layout, cs *clusterState) []int {
	return streamsFollowedBy(l, cs.config, cs.me)
}

// streamsFollowedBy are the streams node me of the config m applies
// (followedStreams).
func streamsFollowedBy(l replication.Layout, m *cluster.Map, me *cluster.Node) []int {
	serves := map[*cluster.Node]bool{me: true}
	if me.Primary != nil {
		serves[me.Primary] = true
	}
	for _, p := range m.Shards() {
		if slices.Contains(m.Successors(p, logFollowers), me) {
			serves[p] = true
		}
	}
	var out []int
	for st := 0; st < l.Streams; st++ {
		first, last := l.SlotsOf(st)
		for slot := first; slot <= last; slot++ {
			if o := m.Owner(slot); o != nil && serves[o] {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// close stops the followers (recording their positions), the log's
// connection and the embedded server.
func (r *jsRepl) close() {
	if r == nil {
		return
	}
	close(r.stop)
	<-r.stopped
	if log := r.log(); log != nil {
		if err := log.Close(); err != nil {
			r.s.cfg.Log.Printf("replication: close: %v", err)
		}
	}
	if r.emb != nil {
		r.emb.Shutdown()
	}
}

// checkReplication validates the replication settings of cfg.
func checkReplication(cfg *Config) error {
	switch strings.ToLower(cfg.Replication) {
	case "", "none":
		cfg.Replication = ""
		return nil
	case ReplicationJetStream:
		cfg.Replication = ReplicationJetStream
	default:
		return fmt.Errorf("server: %w: --replication %q: want jetstream or none", ErrBadConfig, cfg.Replication)
	}
	if cfg.ClusterConfig == "" {
		return fmt.Errorf("server: %w: --replication needs --cluster-config", ErrBadConfig)
	}
	if cfg.Replicate.Streams == 0 {
		cfg.Replicate.Streams = DefaultReplicationStreams
	}
	if cfg.Replicate.StartTimeout <= 0 {
		cfg.Replicate.StartTimeout = time.Minute
	}
	if ttl := cfg.Replicate.LeaseTTL; ttl < 0 || ttl > 0 && ttl < lease.MinTTL {
		return fmt.Errorf("server: %w: --lease-ttl %v: want 0 (no failover) or at least %v", ErrBadConfig, ttl, lease.MinTTL)
	}
	l := replication.Layout{Prefix: cfg.Replicate.Prefix, Streams: cfg.Replicate.Streams, Replicas: 1, MaxAge: cfg.Replicate.MaxAge, MaxBytes: cfg.Replicate.MaxBytes}
	if err := l.Check(); err != nil {
		return fmt.Errorf("server: %w: --replication-streams, --replication-max-age or --replication-max-bytes: %w", ErrBadConfig, err)
	}
	return nil
}

// logSync is when the embedded JetStream store fsyncs, agreeing with
// appendfsync: every write with always (or Replicate.SyncAlways), each
// second with everysec, nats-server's default (2 minutes) with no.
func logSync(cfg Config) (always bool, interval time.Duration) {
	p, _ := parseFsync(cfg.AppendFsync)
	switch {
	case cfg.Replicate.SyncAlways || p == fsyncAlways:
		return true, 0
	case p == fsyncEverysec:
		return false, fsyncInterval
	}
	return false, 0
}
