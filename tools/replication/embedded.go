package replication

import (
	"errors"
	"fmt"
	"net"
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
}

// ClusterName is the NATS cluster name of embedded servers.
const ClusterName = "mmapbloom"

// ErrEmbedded is returned (wrapped) when the embedded server cannot start.
var ErrEmbedded = errors.New("replication: embedded nats-server")

// Embedded32Bit is true on 32-bit platforms, where StartEmbedded refuses:
// nats-server (v2.15.2) loads 64-bit counters with sync/atomic from
// fields that are not 8-byte aligned there ("unaligned 64-bit atomic
// operation" in its statistics, seen on 386).
const Embedded32Bit = strconv.IntSize == 32

// Embedded is a running embedded nats-server.
type Embedded struct{ srv *natsserver.Server }

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
	go srv.Start()
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = 10 * time.Second
	}
	if !srv.ReadyForConnections(cfg.ReadyTimeout) {
		srv.Shutdown()
		return nil, fmt.Errorf("%w: %s not ready after %v", ErrEmbedded, cfg.Name, cfg.ReadyTimeout)
	}
	return &Embedded{srv: srv}, nil
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
	if cfg.RouteAddr == "" {
		return opts, nil
	}
	rh, rp, err := net.SplitHostPort(cfg.RouteAddr)
	port, perr := strconv.Atoi(rp)
	if err != nil || perr != nil {
		return nil, fmt.Errorf("%w: route address %q: want HOST:PORT", ErrEmbedded, cfg.RouteAddr)
	}
	opts.Cluster = natsserver.ClusterOpts{Name: ClusterName, Host: rh, Port: port}
	var routes string
	for _, r := range cfg.Routes {
		if r != cfg.RouteAddr {
			if routes != "" {
				routes += ","
			}
			routes += "nats://" + r
		}
	}
	opts.Routes = natsserver.RoutesFromStr(routes)
	return opts, nil
}

// ClientURL is the URL NATS clients connect to.
func (e *Embedded) ClientURL() string { return e.srv.ClientURL() }

// Shutdown stops the server (a graceful stop hands stream leadership over).
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
