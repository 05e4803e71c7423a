package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/mmapbloom/mmapbloom/tools/server/journal"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Config is the server's configuration. The zero value of each field
// means its default, given in the field's comment.
type Config struct {
	// Dir is the data directory holding one file (or set directory) per
	// key. Required; it must exist.
	Dir string

	// Password, when set, is the default user's password, required by
	// AUTH (or HELLO ... AUTH) before any other command, as Redis's
	// requirepass. Default: none (the default user is nopass).
	Password string

	// ACLFile, when set, is an ACL file in Redis's users.acl syntax
	// (package acl) defining every user, read by New and by ACL LOAD,
	// written by ACL SAVE. It excludes Password (give the default user's
	// password in the file). Default: none (only the default user).
	ACLFile string

	// MasterUser and MasterAuth are the user and password a replica
	// authenticates with to its primary, as Redis's masteruser and
	// masterauth. Default: the default user with Password.
	MasterUser, MasterAuth string

	// PullTLS, when set, makes a replica pull over TLS with it
	// (TLSFiles.ClientConfig), as Redis's tls-replication: the
	// primary's address in ClusterConfig must be its TLS port.
	// Default: plain TCP.
	PullTLS *tls.Config

	// MaxRequest is the most bytes one request may take: one command, or
	// the unparsed rest of a pipeline. A client exceeding it gets a
	// protocol error and is disconnected. Default 64 MiB.
	MaxRequest int

	// MaxClients is the most connections served at once; the next ones
	// get Redis's "ERR max number of clients reached" and are closed.
	// Default 10,000.
	MaxClients int

	// TLSHandshake bounds a TLS client's handshake: a connection to a
	// TLS listener that has not completed it this long after it was
	// accepted is closed, whatever ClientIdle is (a client that never
	// sends its ClientHello holds a descriptor, not the server).
	// Default DefaultTLSHandshake (10 s).
	TLSHandshake time.Duration

	// ClientIdle closes a connection that sent nothing, or read none of
	// its replies, for this long (to an eighth more: its deadline moves
	// once in an eighth of ClientIdle, not once a pipeline). Default 5
	// minutes; negative means never.
	ClientIdle time.Duration

	// FilterIdle closes a key's filter (unmapping it) once no command
	// used it for between one and two of these periods. Default 1
	// minute; negative means never.
	FilterIdle time.Duration

	// FileCheck is how often a key in use is compared with its file
	// (one stat per key per period): a key whose file or set directory
	// an outside tool replaced (a new inode) or removed is reopened at
	// its first use at most this long after (store/filecheck.go). Default
	// DefaultFileCheck (1 s); negative means never.
	FileCheck time.Duration

	// DefaultCapacity, DefaultErrorRate and DefaultExpansion make the
	// filter BF.ADD and BF.MADD create for a missing key: a scaling set
	// whose first layer holds DefaultCapacity keys, growing by
	// DefaultExpansion, or a fixed NONSCALING file of DefaultCapacity
	// keys when DefaultExpansion is 0. Defaults: 1,000,000 keys, 0.01,
	// expansion 0 (the zero value; the serve command defaults to 2).
	DefaultCapacity  uint64
	DefaultErrorRate float64
	DefaultExpansion uint32

	// Sets makes, opens and removes filter sets. Default LibrarySets{}
	// (the library's sets on the real clock).
	Sets store.Sets

	// Log receives the server's few log lines. Default: log.Default().
	Log *log.Logger

	// ClusterConfig, when set, is the path of the cluster config file
	// (see package cluster: `ID HOST:PORT SLOTS` lines, the same file on
	// every node) and turns on cluster mode: keys of slots other nodes
	// own get -MOVED, CLUSTER answers from the file. Reload re-reads it.
	ClusterConfig string

	// NodeID is this node's id in ClusterConfig. Required with it.
	NodeID string

	// PullInterval is how often a replica (a `replica-of` line in
	// ClusterConfig) pulls its primary's filters (pull_fetch.go). Default
	// DefaultPullInterval (1 s).
	PullInterval time.Duration

	// FoldHashtags folds keys with a {hash tag}: prefix{tag}suffix is
	// kept, behind its tag, in one scaling set shared by every key of the
	// name prefix{}suffix in its bucket of slots (see fold.go). It needs
	// DefaultExpansion > 0, and the data directory remembers it: a
	// restart without it (or with other buckets) is refused. Default off.
	FoldHashtags bool

	// FoldBuckets is the number of buckets of slots with FoldHashtags, a
	// power of two from 1 to 16384. Default DefaultFoldBuckets (64).
	FoldBuckets int

	// Limits bounds disk, layers and loads (store.Limits). Default: the
	// defaults of each Limits field.
	Limits store.Limits

	// Replication, when "jetstream" (ReplicationJetStream), publishes
	// every write command to a NATS JetStream log and answers it once
	// applied from there; it needs ClusterConfig (log.go).
	// Default "": no log (replicas pull).
	Replication string

	// Replicate is the log's settings with Replication.
	Replicate ReplicationConfig

	// Failover, with ClusterConfig, makes each shard's current owner the
	// holder of its lease (cluster_failover.go). Default: with
	// Replication and Replicate.LeaseTTL, leases on the log's NATS
	// (logFailover); else none, the config file alone decides.
	Failover *Failover

	// AppendFsync is when writes reach the disk, Redis's appendfsync
	// (save_appendfsync.go): "always" (a write is answered once a Sync
	// after it completed), "everysec" (a Sync each second) or "no" (at
	// WAITAOF 1 and shutdown; the kernel's write-back otherwise). CONFIG
	// SET appendfsync changes it. Default DefaultAppendFsync.
	AppendFsync string

	// Now is the wall clock keys' expiries are set and compared with
	// (EXPIRE, TTL...; store/reap.go). Default time.Now; tests inject
	// one.
	Now func() time.Time

	// ExpireCycle is the period of the background removal of expired
	// keys (Redis's active expire cycle runs 10 times a second); a
	// negative value: removed only when used. Default
	// DefaultExpireCycle.
	ExpireCycle time.Duration
}

// Defaults of Config.
const (
	DefaultMaxRequest = 64 << 20
	DefaultMaxClients = 10000
	DefaultClientIdle = 5 * time.Minute
	// DefaultTLSHandshake is Config.TLSHandshake's default: a handshake
	// takes one or two round trips, so 10 s leaves room for a loaded
	// client on a slow link.
	DefaultTLSHandshake = 10 * time.Second
	DefaultFilterIdle   = time.Minute
	// DefaultFileCheck is Config.FileCheck's default: a key's file
	// replaced behind the server is seen within a second
	// (tools/server/store/filecheck.go).
	DefaultFileCheck   = time.Second
	DefaultExpireCycle = 100 * time.Millisecond
	DefaultCapacity    = 1_000_000
	DefaultErrorRate   = 0.01
)

// Server serves RESP clients on a data directory. Create it with New,
// run it with Serve, stop it with Shutdown.
type Server struct {
	cfg   Config
	conf  liveConfig // what CONFIG SET changes (generic_config.go)
	store *store.Store
	// cmds is the command table (commands.go), indexed by New.
	cmds  *commandSet
	acl   *acl.Users
	start time.Time

	mu       sync.Mutex
	lns      []net.Listener // those of Serve, the first one first
	clients  map[*client]struct{}
	closing  atomic.Bool // Shutdown began; set under mu
	handlers sync.WaitGroup
	// refusing holds a token for each refusal of an over-limit client
	// being written (refuse).
	refusing chan struct{}

	nextID    atomic.Int64
	accepted  atomic.Int64
	commands  atomic.Int64
	rejected  atomic.Int64
	protoErrs atomic.Int64

	// obs counts commands, errors and latencies (obs_stats.go).
	obs *observer

	// cluster is the cluster state, nil when not in cluster mode.
	cluster atomic.Pointer[clusterState]
	// gate is held for reading by every keyed command in cluster mode,
	// and for writing by MBF.MIGRATE to wait for the commands in flight
	// on a range it has just paused.
	gate sync.RWMutex
	// reloadMu serializes changes of cluster (Reload, MBF.MIGRATE).
	reloadMu sync.Mutex
	// puller pulls the primary's filters while this node is a replica.
	puller *puller
	// repl is the replication log, nil without Config.Replication.
	repl *jsRepl
	// failover keeps this node's leases; nil without Config.Failover.
	failover *failover
	// fsync runs appendfsync's Syncs (save_appendfsync.go).
	fsync *syncer
	// journal keeps the writes of appendfsync always (save_journal.go);
	// nil with the replication log, which keeps them there.
	journal *journal.Journal
	// journalOrder makes the journal's order that of the writes' effects:
	// adds (which commute) hold it shared, other writes alone, from their
	// run to their record's append (save_journal.go).
	journalOrder sync.RWMutex
	// shutdownAsked is closed by a client's SHUTDOWN (generic_shutdown.go).
	shutdownAsked chan struct{}
	shutdownOnce  sync.Once

	// trace, when set (by tests), sees every command before it runs.
	trace func(args [][]byte)
	// noBatch turns off the batching of pipelined commands (benchmarks).
	noBatch bool
}

// New checks cfg, fills its defaults and returns a server on cfg.Dir.
func New(cfg Config) (*Server, error) {
	if err := fillDefaults(&cfg); err != nil {
		return nil, err
	}
	var cs *clusterState
	if cfg.ClusterConfig != "" {
		var err error
		if cs, err = loadCluster(cfg.ClusterConfig, cfg.NodeID, nil); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	lim, err := store.NewLimiter(cfg.Dir, cfg.Limits)
	if err != nil {
		return nil, err
	}
	cfg.Limits, cfg.Sets = lim.Limits, lim.Sets(cfg.Sets)
	if n, err := store.RemoveStaleLoads(cfg.Dir); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	} else if n > 0 {
		cfg.Log.Printf("removed %d temporary files of loads interrupted by a crash", n)
	}
	cmds := newCommandSet(commandTable())
	users, err := acl.NewUsers(cmds.acl, cfg.Password, cfg.ACLFile)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	exp, err := store.LoadExpiries(cfg.Dir, cfg.Now)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{cfg: cfg, store: store.New(store.Options{Dir: cfg.Dir, Sets: cfg.Sets, Limiter: lim, Expiries: exp,
		Idle: cfg.FilterIdle, FileCheck: cfg.FileCheck, ExpireCycle: cfg.ExpireCycle}), acl: users,
		start: time.Now(), clients: map[*client]struct{}{}, refusing: make(chan struct{}, maxRefusing), puller: newPuller(), obs: newObserver(cmds),
		cmds: cmds, shutdownAsked: make(chan struct{})}
	s.conf.init(&s.cfg)
	s.fsync = s.newSyncer()
	if err := s.openJournal(); err != nil {
		return nil, errors.Join(fmt.Errorf("server: %w", err), s.store.Close())
	}
	var leases *logLeases
	if cs != nil && cfg.Replication != "" && cfg.Failover == nil && cfg.Replicate.LeaseTTL > 0 {
		s.cfg.Failover, leases = logFailover(cfg.Replicate.LeaseTTL, cfg.Replicate.ConfirmReads)
	}
	if cs != nil && s.cfg.Failover != nil {
		if err := s.startFailover(cs); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		cs = s.withLeases(cs)
	}
	if cs != nil {
		s.cluster.Store(cs)
		if cfg.Replication != "" {
			if s.repl, err = s.startJetStream(cs, leases); err != nil {
				return nil, errors.Join(fmt.Errorf("server: %w", err), s.store.Close())
			}
		}
		if leases == nil { // else once the log is open (jsRepl.openLoop)
			s.runFailover()
		}
		go s.pullLoop()
	} else {
		close(s.puller.done)
	}
	if s.repl != nil {
		s.journal = nil // the log keeps the writes
	}
	go s.fsyncLoop()
	return s, nil
}

func fillDefaults(cfg *Config) error {
	if cfg.Dir == "" {
		return errors.New("server: no data directory")
	}
	if cfg.MaxRequest <= 0 {
		cfg.MaxRequest = DefaultMaxRequest
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ExpireCycle == 0 {
		cfg.ExpireCycle = DefaultExpireCycle
	}
	if cfg.ClientIdle == 0 {
		cfg.ClientIdle = DefaultClientIdle
	}
	if cfg.TLSHandshake <= 0 {
		cfg.TLSHandshake = DefaultTLSHandshake
	}
	if cfg.FilterIdle == 0 {
		cfg.FilterIdle = DefaultFilterIdle
	}
	if cfg.FileCheck == 0 {
		cfg.FileCheck = DefaultFileCheck
	}
	if cfg.DefaultCapacity == 0 {
		cfg.DefaultCapacity = DefaultCapacity
	}
	if cfg.DefaultErrorRate == 0 {
		cfg.DefaultErrorRate = DefaultErrorRate
	}
	if !(cfg.DefaultErrorRate > 0 && cfg.DefaultErrorRate < 1) {
		return fmt.Errorf("server: %w: default error rate %g: want (0, 1)", ErrBadConfig, cfg.DefaultErrorRate)
	}
	if cfg.DefaultExpansion > maxExpansion {
		return fmt.Errorf("server: %w: default expansion %d: at most %d", ErrBadConfig, cfg.DefaultExpansion, maxExpansion)
	}
	if cfg.Sets == nil {
		cfg.Sets = store.LibrarySets{}
	}
	if cfg.PullInterval <= 0 {
		cfg.PullInterval = DefaultPullInterval
	}
	if (cfg.ClusterConfig == "") != (cfg.NodeID == "") {
		return fmt.Errorf("server: %w: give both a cluster config and a node id, or neither", ErrNotCluster)
	}
	if cfg.Password != "" && cfg.ACLFile != "" {
		return fmt.Errorf("server: %w: a password and an ACL file: give the default user's password in the file", ErrBadConfig)
	}
	if cfg.Log == nil {
		cfg.Log = log.Default()
	}
	if cfg.FoldBuckets == 0 {
		cfg.FoldBuckets = DefaultFoldBuckets
	}
	if err := checkAppendFsync(cfg); err != nil {
		return err
	}
	if err := checkReplication(cfg); err != nil {
		return err
	}
	return checkFolding(cfg)
}

// Listen opens a TCP listener on addr. Like Redis's protected mode, it
// refuses an address that is not loopback while the default user needs
// no password (no password, and no ACL file giving it one), unless
// unprotected is true.
func (s *Server) Listen(addr string, unprotected bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("server: address %q: %w", addr, err)
	}
	if s.acl.Open() && !unprotected && !loopback(host) {
		return nil, fmt.Errorf("server: %s: %w (set a password or users, or pass --protected-mode no)", addr, ErrProtectedMode)
	}
	return net.Listen("tcp", addr)
}

// loopback reports whether host names only loopback addresses.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve accepts connections on ln until Shutdown, serving each on its own
// goroutine. It may run on several listeners at once (plain and TLS). It returns nil after Shutdown, or the error of a listener
// closed by someone else. Other accept errors (too many open files) are
// logged and retried after a pause, as net/http does.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		return ln.Close()
	}
	s.lns = append(s.lns, ln)
	s.mu.Unlock()
	pause := 5 * time.Millisecond
	for {
		nc, err := ln.Accept()
		if err == nil {
			pause = 5 * time.Millisecond
			s.admit(nc)
			continue
		}
		s.mu.Lock()
		closing := s.closing.Load()
		s.mu.Unlock()
		switch {
		case closing:
			return nil
		case errors.Is(err, net.ErrClosed):
			return fmt.Errorf("server: accept: %w", err)
		}
		s.cfg.Log.Printf("accept: %v; retrying in %v", err, pause)
		time.Sleep(pause)
		pause = min(2*pause, time.Second)
	}
}

// admit registers a new connection and starts serving it, or refuses it
// when the server is full or closing. It does no network I/O under s.mu,
// nor on the accept loop (a TLS connection's first write runs its
// handshake, which waits for the client).
func (s *Server) admit(nc net.Conn) {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	if int64(len(s.clients)) >= s.conf.maxClients.Load() {
		s.mu.Unlock()
		s.rejected.Add(1)
		s.refuse(nc)
		return
	}
	c := newClient(s, nc)
	s.clients[c] = struct{}{}
	s.accepted.Add(1)
	s.handlers.Add(1)
	s.mu.Unlock()
	go s.serveClient(c)
}

// Refusals of over-limit clients: each is written on a goroutine of its
// own within refuseTime (reads and writes, a TLS handshake included),
// at most maxRefusing at once; past that a connection is closed with no
// reply, so a flood of connections costs no more than maxRefusing
// goroutines.
const (
	refuseTime  = time.Second
	maxRefusing = 64
)

// refuse answers nc, a client past maxclients, with Redis's error and
// closes it, off the accept loop.
func (s *Server) refuse(nc net.Conn) {
	select {
	case s.refusing <- struct{}{}:
	default:
		_ = nc.Close()
		return
	}
	go func() {
		defer func() { <-s.refusing }()
		_ = nc.SetDeadline(time.Now().Add(refuseTime))
		_, _ = nc.Write([]byte("-ERR max number of clients reached\r\n"))
		_ = nc.Close()
	}()
}

// Shutdown stops accepting connections, lets every connection finish the
// commands it has read, closes them, then syncs and closes every filter.
func (s *Server) Shutdown() error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		return nil
	}
	s.closing.Store(true)
	var err error
	for _, ln := range s.lns {
		err = errors.Join(err, ln.Close())
	}
	for c := range s.clients {
		c.interrupt()
	}
	s.mu.Unlock()
	s.stopFailover()
	s.puller.close()
	s.handlers.Wait()
	s.stopFsync()
	s.repl.close()
	return errors.Join(err, s.closeJournal(), s.store.Close())
}

// Addr returns the address of the first listener Serve got, or nil
// before Serve.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lns) == 0 {
		return nil
	}
	return s.lns[0].Addr()
}
