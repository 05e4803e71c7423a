package replication

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// EmbeddedConfig is one node of an embedded NATS cluster.
type EmbeddedConfig struct {
	// Name is the server's name (the node id): unique in the cluster.
	Name string
	// StoreDir is JetStream's store directory (serve uses DIR/.nats).
	StoreDir string
	// RouteAddr is HOST:PORT the cluster routes listen on (the config
	// line's nats=HOST:PORT). Empty for a single server without routes.
	RouteAddr string
	// Routes are the other nodes' RouteAddr (this node's own is skipped).
	Routes []string
	// ClientHost is where NATS clients connect; default 127.0.0.1, on
	// a free port.
	ClientHost string
	// SyncAlways fsyncs every JetStream write (nats-server's
	// sync_interval: always); else SyncInterval is the period of its
	// fsyncs (nats-server's sync_interval; default, 0: its 2 minutes).
	SyncAlways   bool
	SyncInterval time.Duration
	// ReadyTimeout bounds the wait for the server to accept clients.
	// Default 10 s.
	ReadyTimeout time.Duration
	// Cluster is the NATS cluster name: a server routes only with
	// servers of the same name. Default ClusterName.
	Cluster string
	// Secret, when set, is the cluster secret: every route (another
	// server) and every client must give it as the password of user
	// SecretUser, or is refused ("Authorization Violation"). Empty:
	// anyone who reaches the route port can join the cluster.
	Secret string
	// TLS, when set, is mutual TLS on the routes and the client port
	// (nats-server's cluster and client tls blocks with verify): the
	// server presents Certificates and requires a certificate chaining
	// to ClientCAs from every route and client; a route it dials is
	// checked against RootCAs and the host of its address. So the
	// certificate must name the host of RouteAddr (an IP SAN for an IP)
	// and be valid for both server and client authentication.
	TLS *tls.Config
	// MonitorAddr, when set, is HOST:PORT of nats-server's HTTP
	// monitoring endpoint (its http: option: /healthz, /varz, /jsz,
	// /routez...; port 0: a free one, Embedded.MonitorAddr). It has no
	// authentication: bind it to loopback or firewall it. Empty: off.
	MonitorAddr string
	// Logf, when set, receives nats-server's warnings and errors (its
	// stream resets, catch-ups that fail, write errors of its store),
	// each prefixed "nats-server: warning: " or "nats-server: error: ";
	// its notices are dropped. Default: nothing logged.
	Logf func(format string, args ...any)
}

// ClusterName is EmbeddedConfig.Cluster's default.
const ClusterName = "mmapbloom"

// SecretUser is the user name routes and clients give with
// EmbeddedConfig.Secret.
const SecretUser = "mmapbloom"

// tlsTimeout bounds a TLS handshake on the embedded server's routes and
// client port, in seconds (nats-server's default is 2 s; a loaded node
// is given more).
const tlsTimeout = 10.0

// ErrEmbedded is returned (wrapped) when the embedded server cannot start.
var ErrEmbedded = errors.New("replication: embedded nats-server")

// Embedded32Bit is true on 32-bit platforms, where StartEmbedded refuses:
// nats-server (v2.15.2) loads 64-bit counters with sync/atomic from
// fields that are not 8-byte aligned there ("unaligned 64-bit atomic
// operation" in its statistics, seen on 386).
const Embedded32Bit = strconv.IntSize == 32

// Embedded is a running embedded nats-server.
type Embedded struct {
	srv  *natsserver.Server
	auth ClientAuth
}

// StartEmbedded starts a JetStream-enabled nats-server in this process,
// clustered with cfg.Routes, and waits until it accepts clients. The
// failover helper and tests reuse it to build clusters on loopback.
func StartEmbedded(cfg EmbeddedConfig) (*Embedded, error) {
	if Embedded32Bit {
		return nil, fmt.Errorf("%w: not on a 32-bit platform: nats-server's 64-bit atomic counters are not 8-byte aligned there and it panics (use an external NATS cluster, --nats-url)", ErrEmbedded)
	}
	opts, err := embeddedOptions(cfg)
	if err != nil {
		return nil, err
	}
	srv, err := natsserver.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEmbedded, err)
	}
	if cfg.Logf != nil {
		srv.SetLoggerV2(serverLog(cfg.Logf), false, false, false)
	}
	go srv.Start()
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = 10 * time.Second
	}
	if !srv.ReadyForConnections(cfg.ReadyTimeout) {
		srv.Shutdown()
		return nil, fmt.Errorf("%w: %s not ready after %v", ErrEmbedded, cfg.Name, cfg.ReadyTimeout)
	}
	return &Embedded{srv: srv, auth: embeddedClient(cfg, opts.Host)}, nil
}

func embeddedOptions(cfg EmbeddedConfig) (*natsserver.Options, error) {
	host := cfg.ClientHost
	if host == "" {
		host = "127.0.0.1"
	}
	opts := &natsserver.Options{
		ServerName: cfg.Name, Host: host, Port: natsserver.RANDOM_PORT,
		JetStream: true, StoreDir: cfg.StoreDir, NoSigs: true, NoLog: true,
		SyncAlways: cfg.SyncAlways, SyncInterval: cfg.SyncInterval,
	}
	if cfg.Secret != "" {
		opts.Username, opts.Password = SecretUser, cfg.Secret
	}
	if cfg.TLS != nil {
		opts.TLSConfig, opts.TLSVerify, opts.TLSTimeout = cfg.TLS.Clone(), true, tlsTimeout
	}
	if err := monitorOptions(opts, cfg.MonitorAddr); err != nil {
		return nil, err
	}
	if cfg.RouteAddr == "" {
		return opts, nil
	}
	rh, rp, err := net.SplitHostPort(cfg.RouteAddr)
	port, perr := strconv.Atoi(rp)
	if err != nil || perr != nil {
		return nil, fmt.Errorf("%w: route address %q: want HOST:PORT", ErrEmbedded, cfg.RouteAddr)
	}
	opts.Cluster = natsserver.ClusterOpts{Name: cmp.Or(cfg.Cluster, ClusterName), Host: rh, Port: port}
	if cfg.Secret != "" {
		opts.Cluster.Username, opts.Cluster.Password = SecretUser, cfg.Secret
	}
	if cfg.TLS != nil {
		opts.Cluster.TLSConfig, opts.Cluster.TLSTimeout = cfg.TLS.Clone(), tlsTimeout
	}
	for _, r := range cfg.Routes {
		if r != cfg.RouteAddr {
			u := &url.URL{Scheme: "nats", Host: r}
			if cfg.Secret != "" {
				u.User = url.UserPassword(SecretUser, cfg.Secret)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	return opts, nil
}

// monitorOptions sets opts' HTTP monitoring endpoint to addr (nothing
// when empty; port 0: a free one).
func monitorOptions(opts *natsserver.Options, addr string) error {
	if addr == "" {
		return nil
	}
	h, p, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || port < 0 {
		return fmt.Errorf("%w: monitoring address %q: want HOST:PORT", ErrEmbedded, addr)
	}
	if port == 0 {
		port = natsserver.RANDOM_PORT
	}
	opts.HTTPHost, opts.HTTPPort = h, port
	return nil
}

// embeddedClient is how a node connects to its own embedded server
// (Embedded.Client): with the secret, and over TLS checking the
// server's certificate against the host of RouteAddr, which the
// certificate must name for the routes (clientHost without routes).
func embeddedClient(cfg EmbeddedConfig, clientHost string) ClientAuth {
	a := ClientAuth{}
	if cfg.Secret != "" {
		a.User, a.Password = SecretUser, cfg.Secret
	}
	if cfg.TLS != nil {
		a.TLS = cfg.TLS.Clone()
		a.TLS.ServerName = clientHost
		if h, _, err := net.SplitHostPort(cfg.RouteAddr); err == nil {
			a.TLS.ServerName = h
		}
	}
	return a
}

// serverLog is nats-server's logger writing its warnings and errors to
// a Logf, each prefixed "nats-server: " and its level; its notices,
// debug and trace lines are dropped.
type serverLog func(format string, args ...any)

func (l serverLog) Warnf(format string, v ...any) {
	l("nats-server: warning: "+format, v...)
}
func (l serverLog) Errorf(format string, v ...any) {
	l("nats-server: error: "+format, v...)
}
func (l serverLog) Fatalf(format string, v ...any) {
	l("nats-server: fatal: "+format, v...)
}
func (serverLog) Noticef(string, ...any) {}
func (serverLog) Debugf(string, ...any)  {}
func (serverLog) Tracef(string, ...any)  {}

// ClientURL is the URL NATS clients connect to.
func (e *Embedded) ClientURL() string { return e.srv.ClientURL() }

// Client is the ClientAuth a client of this server needs
// (Config.Auth): the secret, and TLS with this node's certificate.
func (e *Embedded) Client() ClientAuth { return e.auth }

// MonitorAddr is the address of the HTTP monitoring endpoint, nil
// when EmbeddedConfig.MonitorAddr was empty.
func (e *Embedded) MonitorAddr() *net.TCPAddr { return e.srv.MonitorAddr() }

// Shutdown stops the server (a graceful stop hands stream leadership over).
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
