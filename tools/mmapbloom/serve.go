package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/metrics"
	"github.com/mmapbloom/mmapbloom/tools/server"
	serverstore "github.com/mmapbloom/mmapbloom/tools/server/store"
)

// serveCmd runs the RESP server (RedisBloom's BF.* commands) on a data
// directory of filter files.
type serveCmd struct {
	Dir                 string        `required:"" type:"existingdir" help:"Data directory: one filter file per key (KEY.bloom)."`
	Addr                string        `default:"127.0.0.1:6379" help:"Address to listen on (host:port); loopback unless the default user has a password or --protected-mode no; empty: no plain TCP (with --tls-port)."`
	Requirepass         string        `env:"MMAPBLOOM_REQUIREPASS" help:"Password clients must give with AUTH (also from env MMAPBLOOM_REQUIREPASS, so it stays out of ps)."`
	RequirepassFile     string        `type:"existingfile" help:"Read the password from this file (its first line)."`
	Unprotected         bool          `help:"Allow a non-loopback address without a password (as --protected-mode no)."`
	ProtectedMode       string        `default:"yes" enum:"yes,no" help:"Refuse a non-loopback address while the default user needs no password (Redis's protected-mode)."`
	Aclfile             string        `type:"existingfile" help:"Users and their rules in Redis's users.acl syntax, read at start and by ACL LOAD, written by ACL SAVE (excludes --requirepass)."`
	Masteruser          string        `help:"User a replica authenticates as to its primary (default: default)."`
	Masterauth          string        `env:"MMAPBLOOM_MASTERAUTH" help:"Password of --masteruser (also from env MMAPBLOOM_MASTERAUTH; default: the --requirepass password)."`
	MasterauthFile      string        `type:"existingfile" help:"Read --masterauth from this file (its first line)."`
	TLSPort             string        `name:"tls-port" help:"Serve TLS on this port (or host:port; the host defaults to --addr's)."`
	TLSCertFile         string        `name:"tls-cert-file" type:"existingfile" help:"TLS certificate (PEM) of the server, and of a replica's pulls."`
	TLSKeyFile          string        `name:"tls-key-file" type:"existingfile" help:"TLS private key (PEM) of --tls-cert-file."`
	TLSCACertFile       string        `name:"tls-ca-cert-file" type:"existingfile" help:"CA certificate (PEM) that client and peer certificates must chain to."`
	TLSAuthClients      string        `name:"tls-auth-clients" default:"yes" enum:"yes,no,optional" help:"Ask TLS clients for a certificate signed by --tls-ca-cert-file: yes (required), optional, no."`
	TLSReplication      string        `name:"tls-replication" default:"no" enum:"yes,no" help:"A replica pulls over TLS: the primary's address in --cluster-config must be its TLS port."`
	TLSHandshakeTimeout time.Duration `name:"tls-handshake-timeout" default:"10s" help:"Close a TLS client that has not completed its handshake this long after connecting, whatever --timeout is."`
	Maxclients          int           `default:"10000" help:"Most clients connected at once."`
	MaxRequest          int           `default:"67108864" help:"Most bytes in one request; a larger one closes the connection."`
	Timeout             time.Duration `default:"5m" help:"Close a client idle this long (negative: never)."`
	FilterIdle          time.Duration `default:"1m" help:"Close (unmap) a filter unused for about this long (negative: never)."`
	DefaultCapacity     uint64        `default:"1000000" help:"Capacity of the filter BF.ADD / BF.MADD create for a missing key (of its first layer when it scales)."`
	DefaultErrorRate    float64       `default:"0.01" help:"False-positive probability of the filter BF.ADD / BF.MADD create."`
	DefaultExpansion    uint32        `default:"2" help:"Expansion of the scaling set BF.ADD / BF.MADD create for a missing key, as RedisBloom; 0 creates a fixed NONSCALING file instead."`
	ClusterConfig       string        `type:"existingfile" help:"Cluster mode: the cluster config file (lines ID HOST:PORT SLOTS, or ID HOST:PORT replica-of PRIMARY_ID, the same on every node); SIGHUP or CLUSTER RELOAD re-reads it."`
	NodeID              string        `help:"This node's id in --cluster-config."`
	PullInterval        time.Duration `default:"1s" help:"A replica pulls its primary's filters this often (MBF.PULL pulls at once)."`
	Replication         string        `default:"none" enum:"none,jetstream" help:"jetstream: publish every write to a NATS JetStream log and answer it once the log has it on a quorum; every node applies the slots it serves from the log (needs --cluster-config; docs/cluster.md)."`
	NatsURL             string        `name:"nats-url" help:"With --replication jetstream: an external NATS cluster's client URLs (URL[,URL...]) instead of the embedded nats-server at each node's nats=HOST:PORT."`
	ReplicationStreams  int           `default:"16" help:"Streams of the log (a power of two from 1 to 256), each a range of slots."`
	ReplicationMaxAge   time.Duration `default:"24h" help:"The log keeps entries this long (a node down longer bootstraps with a pull); 0 (no bound) or at least 2m."`
	ReplicationMaxBytes int64         `placeholder:"BYTES" help:"The log keeps at most this many bytes per stream (0: no bound but the age); at least 64 MiB (67108864)."`
	NatsSyncAlways      bool          `name:"nats-sync-always" help:"The embedded nats-server fsyncs every log write (its sync_interval: always)."`
	NatsClusterName     string        `name:"nats-cluster-name" default:"mmapbloom" help:"The embedded NATS servers' cluster name: a server routes only with servers of the same name."`
	NatsMonitorAddr     string        `name:"nats-monitor-addr" placeholder:"HOST:PORT" help:"The embedded nats-server's HTTP monitoring endpoint (/healthz, /varz, /jsz, /routez), unauthenticated: bind it to 127.0.0.1 or firewall it. Default: off."`
	NatsSecretFile      string        `name:"nats-secret-file" type:"existingfile" help:"The cluster secret (the file's first line, the same file on every node) that every route and client of the embedded NATS servers must give; without it anyone reaching a nats= port can join (docs/security.md)."`
	NatsTLS             string        `name:"nats-tls" default:"no" enum:"yes,no" help:"yes: the embedded NATS servers' routes and client port use mutual TLS with --tls-cert-file, --tls-key-file and --tls-ca-cert-file (the certificate names the host of the node's nats=, for server and client authentication); with --nats-url, the connection uses TLS, checking the servers against --tls-ca-cert-file and presenting --tls-cert-file if given."`
	NatsCredsFile       string        `name:"nats-creds-file" type:"existingfile" help:"With --nats-url: a .creds file (a user JWT and its NKey seed)."`
	NatsNkeyFile        string        `name:"nats-nkey-file" type:"existingfile" help:"With --nats-url: a file holding the user's NKey seed (SU...)."`
	NatsUser            string        `name:"nats-user" help:"With --nats-url: the NATS user, whose password is the first line of --nats-password-file."`
	NatsPasswordFile    string        `name:"nats-password-file" type:"existingfile" help:"With --nats-url: the password of --nats-user (the file's first line)."`
	NatsPrefix          string        `name:"nats-prefix" default:"MBF" help:"The log's names on NATS: streams PREFIX_LOG_NN, subjects prefix.log.NN, buckets PREFIX_LEASES and PREFIX_NODES, so that clusters with different prefixes share one NATS; the default, MBF, keeps the names of clusters made before this flag."`
	LeaseTTL            time.Duration `name:"lease-ttl" default:"5s" help:"With --replication jetstream: failover with no person in the loop; a shard's owner holds a lease in NATS that expires this long after its last renewal, and a node applying its log takes it over (after at most TTL + TTL/4, plus the log's drain and NATS's elections; docs/cluster.md). 0: no failover (the config file decides)."`
	LeaseRead           string        `name:"lease-read" default:"clock" enum:"clock,confirm" help:"With failover: clock serves a shard's reads and writes while its owner's last lease renewal began less than TTL - TTL/4 ago on this node's CLOCK_BOOTTIME; confirm also makes each read wait for a lease renewal that began after it arrived (one NATS write shared by the reads waiting; docs/cluster.md)."`
	FoldHashtags        bool          `help:"Fold keys with a {hash tag}: prefix{tag}suffix lives, behind its tag, in one scaling set per name prefix{}suffix and bucket of slots (a million hosts do not make a million files). Changes what such a key means; the data directory remembers it."`
	FoldBuckets         int           `default:"64" help:"Buckets of slots with --fold-hashtags: a power of two from 1 to 16384."`
	MaxFilterBytes      uint64        `default:"4294967296" help:"Largest filter file (or set layer) a create, load or growth may make, in bytes (docs/limits.md)."`
	DiskReserve         uint64        `placeholder:"BYTES" help:"Free bytes a create, load or growth must leave on --dir's file system (default: 1 GiB or 5% of its size, the smaller)."`
	MaxLayers           int           `default:"64" help:"Most layers of a scaling or windowed set; the add needing one more is refused."`
	MaxLoads            int           `default:"64" help:"Most BF.LOADCHUNK loads in progress at once."`
	MaxClientLoads      int           `default:"4" help:"Most BF.LOADCHUNK loads in progress started by one client."`
	FilterFiles         int           `default:"1024" help:"Most file descriptors the open filters hold (least recently used closed first); fitted with --maxclients to RLIMIT_NOFILE."`
	SlowlogSlower       int64         `name:"slowlog-log-slower-than" default:"10000" help:"SLOWLOG logs commands taking at least this many microseconds (0: every command; negative: none)."`
	SlowlogMaxLen       int64         `name:"slowlog-max-len" default:"128" help:"Most entries SLOWLOG keeps."`
	Appendfsync         string        `default:"everysec" enum:"always,everysec,no" help:"When writes reach the disk, as Redis's appendfsync: always (a write is answered once synced; concurrent writes share a Sync), everysec (a Sync each second: a power cut loses at most about 2 s of writes), no (at WAITAOF 1 and shutdown; the kernel's write-back otherwise). CONFIG SET appendfsync changes it (docs/operations.md)."`
	MetricsAddr         string        `name:"metrics-addr" help:"Serve Prometheus metrics at http://HOST:PORT/metrics (docs/operations.md); empty: none."`
}

// Validate refuses, before anything starts, flag values the server
// would otherwise take for "the default" (0) or ignore: kong calls it
// after parsing.
func (c *serveCmd) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"--maxclients", int64(c.Maxclients)}, {"--max-request", int64(c.MaxRequest)}, {"--fold-buckets", int64(c.FoldBuckets)},
		{"--max-layers", int64(c.MaxLayers)}, {"--max-loads", int64(c.MaxLoads)}, {"--max-client-loads", int64(c.MaxClientLoads)},
		{"--filter-files", int64(c.FilterFiles)}} {
		if f.v <= 0 {
			return fmt.Errorf("%s %d: want at least 1", f.name, f.v)
		}
	}
	if c.MaxFilterBytes == 0 {
		return errors.New("--max-filter-bytes 0: want at least 1")
	}
	if c.DefaultCapacity == 0 {
		return errors.New("--default-capacity 0: want at least 1")
	}
	if c.DefaultErrorRate == 0 {
		return errors.New("--default-error-rate 0: want a rate in (0, 1)")
	}
	if !c.FoldHashtags && c.FoldBuckets != server.DefaultFoldBuckets {
		return fmt.Errorf("--fold-buckets %d without --fold-hashtags: nothing would be folded", c.FoldBuckets)
	}
	return c.validateNATS()
}

// validateNATS refuses NATS flags that would be ignored: the embedded
// servers' with --nats-url, an external cluster's without it, a user
// without a password or the other way round.
func (c *serveCmd) validateNATS() error {
	if c.NatsURL != "" && c.NatsSecretFile != "" {
		return errors.New("--nats-secret-file is the embedded servers' secret: with --nats-url give --nats-creds-file, --nats-nkey-file or --nats-user")
	}
	for _, f := range []struct{ name, v string }{{"--nats-creds-file", c.NatsCredsFile}, {"--nats-nkey-file", c.NatsNkeyFile},
		{"--nats-user", c.NatsUser}, {"--nats-password-file", c.NatsPasswordFile}} {
		if f.v != "" && c.NatsURL == "" {
			return fmt.Errorf("%s without --nats-url: the embedded servers use --nats-secret-file", f.name)
		}
	}
	if (c.NatsUser == "") != (c.NatsPasswordFile == "") {
		return errors.New("give --nats-user and --nats-password-file together")
	}
	return nil
}

// natsAuth reads the NATS flags' secrets and TLS files into rc.
func (c *serveCmd) natsAuth(rc *server.ReplicationConfig, files server.TLSFiles) error {
	var err error
	if rc.NATSSecret, err = secret("--nats-secret", "", c.NatsSecretFile); err != nil {
		return err
	}
	rc.NATSAuth.CredsFile, rc.NATSAuth.NKeyFile, rc.NATSAuth.User = c.NatsCredsFile, c.NatsNkeyFile, c.NatsUser
	if rc.NATSAuth.Password, err = secret("--nats-password", "", c.NatsPasswordFile); err != nil {
		return err
	}
	if c.NatsTLS != "yes" {
		return nil
	}
	if c.NatsURL != "" {
		rc.NATSAuth.TLS, err = files.ClientConfig()
	} else {
		rc.NATSTLS, err = files.PeerConfig()
	}
	if err != nil {
		return fmt.Errorf("serve: --nats-tls: %w", err)
	}
	return nil
}

// Run listens, logs the address, and serves until SIGINT or SIGTERM,
// then finishes the commands in flight and syncs and closes every filter.
func (c *serveCmd) Run(e *env) error {
	pass, err := secret("--requirepass", c.Requirepass, c.RequirepassFile)
	if err != nil {
		return err
	}
	masterauth, err := secret("--masterauth", c.Masterauth, c.MasterauthFile)
	if err != nil {
		return err
	}
	tlsFiles := server.TLSFiles{CertFile: c.TLSCertFile, KeyFile: c.TLSKeyFile, CAFile: c.TLSCACertFile, AuthClients: c.TLSAuthClients}
	var pullTLS *tls.Config
	if c.TLSReplication == "yes" {
		if pullTLS, err = tlsFiles.ClientConfig(); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	repl := server.ReplicationConfig{NATSURLs: splitURLs(c.NatsURL), NATSCluster: c.NatsClusterName, NATSMonitorAddr: c.NatsMonitorAddr, Prefix: c.NatsPrefix,
		Streams: c.ReplicationStreams, MaxAge: c.ReplicationMaxAge, MaxBytes: c.ReplicationMaxBytes, SyncAlways: c.NatsSyncAlways,
		LeaseTTL: c.LeaseTTL, ConfirmReads: c.LeaseRead == "confirm"}
	if err := c.natsAuth(&repl, tlsFiles); err != nil {
		return err
	}
	logger := log.New(e.stderr, "mmapbloom serve: ", log.LstdFlags)
	clients, files, note, err := server.FitDescriptors(c.Maxclients, c.FilterFiles)
	if err != nil {
		return err
	}
	srv, err := server.New(server.Config{
		Dir: c.Dir, Password: pass, ACLFile: c.Aclfile, MasterUser: c.Masteruser, MasterAuth: masterauth, PullTLS: pullTLS,
		MaxRequest: c.MaxRequest, MaxClients: clients,
		ClientIdle: c.Timeout, TLSHandshake: c.TLSHandshakeTimeout, FilterIdle: c.FilterIdle, Log: logger,
		DefaultCapacity: c.DefaultCapacity, DefaultErrorRate: c.DefaultErrorRate, DefaultExpansion: c.DefaultExpansion,
		ClusterConfig: c.ClusterConfig, NodeID: c.NodeID, PullInterval: c.PullInterval,
		FoldHashtags: c.FoldHashtags, FoldBuckets: c.FoldBuckets, AppendFsync: c.Appendfsync,
		Replication: c.Replication, Replicate: repl,
		Limits: serverstore.Limits{MaxFilterBytes: c.MaxFilterBytes, DiskReserve: c.DiskReserve, MaxLayers: c.MaxLayers,
			MaxLoads: c.MaxLoads, MaxClientLoads: c.MaxClientLoads, FilterFiles: files},
	})
	if err != nil {
		return err
	}
	stopMetrics, err := c.observe(srv, logger)
	if err != nil {
		return errors.Join(err, srv.Shutdown())
	}
	defer stopMetrics()
	// SIGHUP reloads the cluster config in cluster mode and is logged and
	// otherwise ignored standalone, as redis-server ignores it (a closed
	// terminal must not kill the server); caught from before the
	// listening line, which tells a supervisor the node is up.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	lns, err := c.listen(srv, tlsFiles)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	done := make(chan error, len(lns))
	logger.Print(note)
	for i, ln := range lns {
		go func() { done <- srv.Serve(ln) }()
		with := ""
		if c.TLSPort != "" && i == len(lns)-1 {
			with = " with TLS"
		}
		logger.Printf("listening on %s%s (data directory %s)", ln.Addr(), with, c.Dir)
	}
	if c.ClusterConfig != "" {
		logger.Printf("cluster mode: node %s of %s", c.NodeID, c.ClusterConfig)
	}
	if c.FoldHashtags {
		logger.Printf("folding hash-tagged keys into %d buckets of slots", c.FoldBuckets)
	}
	for {
		select {
		case err = <-done:
			return errors.Join(err, srv.Shutdown())
		case <-ctx.Done():
			logger.Printf("signal received: finishing commands, syncing and closing filters")
			return srv.Shutdown()
		case <-srv.ShutdownRequested():
			logger.Printf("SHUTDOWN received: finishing commands, syncing and closing filters")
			return srv.Shutdown()
		case <-hup:
			if c.ClusterConfig == "" {
				logger.Printf("SIGHUP received: ignored (standalone server; in cluster mode it reloads the config)")
			} else if err := srv.Reload(); err != nil {
				logger.Printf("SIGHUP: config not reloaded: %v", err)
			}
		}
	}
}

// observe sets the slow log's parameters and starts the metrics
// endpoint of --metrics-addr; the returned function stops it.
func (c *serveCmd) observe(srv *server.Server, logger *log.Logger) (func(), error) {
	if err := srv.SetConfig("slowlog-log-slower-than", strconv.FormatInt(c.SlowlogSlower, 10)); err != nil {
		return nil, fmt.Errorf("--slowlog-log-slower-than: %w", err)
	}
	if err := srv.SetConfig("slowlog-max-len", strconv.FormatInt(c.SlowlogMaxLen, 10)); err != nil {
		return nil, fmt.Errorf("--slowlog-max-len: %w", err)
	}
	if c.MetricsAddr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", c.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	ep := metrics.Serve(ln, srv)
	logger.Printf("metrics on http://%s/metrics", ln.Addr())
	return func() { _ = ep.Close() }, nil
}

// listen opens the plain listener (unless --addr is empty) and the TLS
// one of --tls-port, in that order.
func (c *serveCmd) listen(srv *server.Server, files server.TLSFiles) ([]net.Listener, error) {
	unprotected := c.Unprotected || c.ProtectedMode == "no"
	var lns []net.Listener
	if c.Addr != "" {
		ln, err := srv.Listen(c.Addr, unprotected)
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
	}
	if c.TLSPort == "" {
		return lns, nil
	}
	cfg, err := files.ServerConfig()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("serve: %w", err), closeAll(lns))
	}
	ln, err := srv.ListenTLS(tlsAddr(c.TLSPort, c.Addr), unprotected, cfg)
	if err != nil {
		return nil, errors.Join(err, closeAll(lns))
	}
	return append(lns, ln), nil
}

// tlsAddr is --tls-port as an address: a bare port gets --addr's host
// (loopback without one).
func tlsAddr(port, addr string) string {
	if strings.Contains(port, ":") {
		return port
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

func closeAll(lns []net.Listener) error {
	var err error
	for _, ln := range lns {
		err = errors.Join(err, ln.Close())
	}
	return err
}

// secret returns a password given as flag's value (or its environment
// variable) or in file (its first line), which must not both be given.
func secret(flag, value, file string) (string, error) {
	if file == "" {
		return value, nil
	}
	if value != "" {
		return "", fmt.Errorf("serve: give %s or %s-file, not both", flag, flag)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("serve: %w", err)
	}
	pass, _, _ := strings.Cut(string(b), "\n")
	pass = strings.TrimSuffix(pass, "\r")
	if pass == "" {
		return "", fmt.Errorf("serve: %s: empty password", file)
	}
	return pass, nil
}

// splitURLs splits --nats-url's comma-separated URLs (nil for "").
func splitURLs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
