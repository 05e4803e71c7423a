package replication_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
)

// startCluster starts len(names) embedded servers with base's settings
// and stops them at the test's end.
func startCluster(t *testing.T, base replication.EmbeddedConfig, names ...string) []*replication.Embedded {
	t.Helper()
	natstest.RequireEmbedded(t)
	srv, err := replication.StartLocalClusterWith(t.TempDir(), names, base)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, s := range srv {
			s.Shutdown()
		}
	})
	return srv
}

// openNode opens node's log on urls with auth and follows every stream
// of layout with a fresh memApplier.
func openNode(t *testing.T, urls []string, node string, layout replication.Layout, auth replication.ClientAuth) (*replication.Log, interface{ Has(key, item string) bool }) {
	t.Helper()
	l, err := replication.Open(replication.Config{URLs: urls, Node: node, Layout: layout, Dir: t.TempDir(), Auth: auth,
		Checkpoint: 50 * time.Millisecond, FetchWait: 100 * time.Millisecond, PublishTimeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	m := replication.NewMem()
	streams := make([]int, layout.Streams)
	for i := range streams {
		streams[i] = i
	}
	l.Follow(streams, m)
	return l, m
}

// requireReplicated publishes adds of key from logs[0] on every stream
// and requires every node to have applied them all.
func requireReplicated(t *testing.T, key string, logs []*replication.Log, mems []interface{ Has(key, item string) bool }) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	streams := logs[0].Layout().Streams
	const adds = 100
	var acks []*replication.Ack
	for i := range adds {
		acks = append(acks, logs[0].Submit(i%streams, replication.AddRec(key, fmt.Sprint("u", i))))
	}
	for _, a := range acks {
		_, err := a.Wait(ctx)
		require.NoError(t, err)
	}
	for i, l := range logs {
		for s := range streams {
			_, err := l.DrainToLast(ctx, s)
			require.NoError(t, err, "node %d stream %d", i, s)
		}
	}
	for i, m := range mems {
		for j := range adds {
			require.True(t, m.Has(key, fmt.Sprint("u", j)), "node %d item %d", i, j)
		}
	}
}

// serverLog records what a nats-server logs.
type serverLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *serverLog) add(format string, v ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
	l.mu.Unlock()
}

func (l *serverLog) Noticef(format string, v ...any) { l.add(format, v...) }
func (l *serverLog) Warnf(format string, v ...any)   { l.add(format, v...) }
func (l *serverLog) Fatalf(format string, v ...any)  { l.add(format, v...) }
func (l *serverLog) Errorf(format string, v ...any)  { l.add(format, v...) }
func (l *serverLog) Debugf(format string, v ...any)  { l.add(format, v...) }
func (l *serverLog) Tracef(format string, v ...any)  { l.add(format, v...) }

// has reports whether a line logged contains s.
func (l *serverLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// routedFrom reports whether e has a route with the server named name
// (the soliciting side counts a route before the other side has
// checked it; the accepting side lists it only once it is admitted).
func routedFrom(t *testing.T, e *replication.Embedded, name string) bool {
	rz, err := e.NATSServer().Routez(nil)
	require.NoError(t, err)
	for _, r := range rz.Routes {
		if r.RemoteName == name {
			return true
		}
	}
	return false
}

// A server that routes in without the cluster's secret, with a wrong
// one, or over TLS with a certificate of another CA is refused: the
// cluster's server logs the refusal and the rogue has no route (no
// subject of the cluster, no $JS.API, reaches it).
func TestRogueRouteRefused(t *testing.T) {
	certs, other := natstest.NewCerts(t), natstest.NewCerts(t)
	for _, tc := range []struct {
		name           string
		cluster, rogue replication.EmbeddedConfig
		refusal        string // in the cluster server's log
	}{
		{"no secret", replication.EmbeddedConfig{Secret: "s3cret"}, replication.EmbeddedConfig{}, "authentication error"},
		{"wrong secret", replication.EmbeddedConfig{Secret: "s3cret"}, replication.EmbeddedConfig{Secret: "guess"}, "authentication error"},
		{"certificate of another CA", replication.EmbeddedConfig{Secret: "s3cret", TLS: certs.Peer},
			replication.EmbeddedConfig{Secret: "s3cret", TLS: other.Peer}, "TLS route handshake error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startCluster(t, tc.cluster, "n1", "n2")
			logs := &serverLog{}
			srv[0].NATSServer().SetLogger(logs, false, false)
			port, err := replication.FreePort()
			require.NoError(t, err)
			rogue := tc.rogue
			rogue.Name, rogue.StoreDir = "rogue", t.TempDir()
			rogue.RouteAddr = fmt.Sprintf("127.0.0.1:%d", port)
			rogue.Routes = []string{srv[0].NATSServer().ClusterAddr().String()}
			r, err := replication.StartEmbedded(rogue)
			require.NoError(t, err)
			t.Cleanup(r.Shutdown)
			require.Eventually(t, func() bool { return routedFrom(t, srv[0], "rogue") || logs.has(tc.refusal) },
				time.Minute, 20*time.Millisecond, "neither routed nor refused")
			require.False(t, routedFrom(t, srv[0], "rogue"), "the rogue server joined the cluster")
		})
	}
}

// A client of an embedded server with a secret must give it: with no
// credentials, a wrong password or (with TLS) no certificate it is
// refused; with Embedded.Client it connects. (Without a certificate
// the refusal's text depends on when the TLS 1.3 client sees the
// server's alert: "bad certificate", a broken pipe, EOF.)
func TestUnauthenticatedClientRefused(t *testing.T) {
	certs := natstest.NewCerts(t)
	plain := startCluster(t, replication.EmbeddedConfig{Secret: "s3cret"}, "n1")[0]
	secure := startCluster(t, replication.EmbeddedConfig{Secret: "s3cret", TLS: certs.Peer}, "n1")[0]
	noCert := secure.Client().TLS.Clone()
	noCert.Certificates = nil
	for _, tc := range []struct {
		name    string
		srv     *replication.Embedded
		opts    []nats.Option
		refused bool
		err     string // in the error in lower case ("" any)
	}{
		{"no credentials", plain, nil, true, "authorization violation"},
		{"wrong password", plain, []nats.Option{nats.UserInfo(replication.SecretUser, "guess")}, true, "authorization violation"},
		{"secret", plain, []nats.Option{nats.UserInfo(replication.SecretUser, "s3cret")}, false, ""},
		{"TLS, no certificate", secure, []nats.Option{nats.UserInfo(replication.SecretUser, "s3cret"), nats.Secure(noCert)}, true, ""},
		{"TLS, no credentials", secure, []nats.Option{nats.Secure(secure.Client().TLS)}, true, "authorization violation"},
		{"TLS and secret", secure, []nats.Option{nats.UserInfo(replication.SecretUser, "s3cret"), nats.Secure(secure.Client().TLS)}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, err := nats.Connect(tc.srv.ClientURL(), append(tc.opts, nats.Timeout(30*time.Second))...)
			if tc.refused {
				require.Error(t, err)
				require.Contains(t, strings.ToLower(err.Error()), tc.err)
				return
			}
			require.NoError(t, err)
			nc.Close()
		})
	}
}

// Three nodes whose embedded servers route over mutual TLS with a
// secret replicate: adds on one node are applied on the others.
func TestLogOverTLSRoutes(t *testing.T) {
	certs := natstest.NewCerts(t)
	srv := startCluster(t, replication.EmbeddedConfig{Cluster: "tls-test", Secret: "s3cret", TLS: certs.Peer}, "n1", "n2", "n3")
	layout := replication.Layout{Streams: 2, Replicas: 3}
	var logs []*replication.Log
	var mems []interface{ Has(key, item string) bool }
	for i, s := range srv {
		require.True(t, strings.HasPrefix(s.ClientURL(), "tls://"), s.ClientURL())
		l, m := openNode(t, []string{s.ClientURL()}, fmt.Sprintf("n%d", i+1), layout, s.Client())
		logs, mems = append(logs, l), append(mems, m)
	}
	requireReplicated(t, "seen", logs, mems)
}

// An external cluster of Debian's nats-server (2.9) with TLS (verify)
// and users: nodes connecting with an NKey seed file and with a user
// and password over TLS replicate; a node without credentials is
// refused.
func TestLogExternalNATSTLSCredentials(t *testing.T) {
	certs := natstest.NewCerts(t)
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	pub, err := kp.PublicKey()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	seedFile := filepath.Join(t.TempDir(), "node.nk")
	require.NoError(t, os.WriteFile(seedFile, append(seed, '\n'), 0o600))
	p := natstest.StartProcessesWith(t, 3, fmt.Sprintf(
		"tls { cert_file: %q\n key_file: %q\n ca_file: %q\n verify: true\n timeout: 10 }\n"+
			"authorization { users: [ {user: node2, password: \"pass two\"}, {nkey: %s} ] }",
		certs.CertFile, certs.KeyFile, certs.CAFile, pub))
	urls := strings.Split(p.URLs(), ",")
	client := certs.Peer.Clone()
	_, err = replication.Open(replication.Config{URLs: urls, Node: "anon", Layout: replication.Layout{Streams: 1, Replicas: 3},
		Dir: t.TempDir(), Auth: replication.ClientAuth{TLS: client}})
	require.ErrorIs(t, err, nats.ErrAuthorization)

	layout := replication.Layout{Streams: 2, Replicas: 3}
	var logs []*replication.Log
	var mems []interface{ Has(key, item string) bool }
	for i, auth := range []replication.ClientAuth{
		{NKeyFile: seedFile, TLS: client},
		{User: "node2", Password: "pass two", TLS: client},
		{NKeyFile: seedFile, TLS: client},
	} {
		l, m := openNode(t, urls[i:i+1], fmt.Sprintf("n%d", i+1), layout, auth)
		logs, mems = append(logs, l), append(mems, m)
	}
	requireReplicated(t, "seen", logs, mems)
}

// Two clusters with different prefixes on one NATS keep apart: each
// has its own streams and applies only its own adds, though their
// nodes have the same ids.
func TestPrefixesShareOneNATS(t *testing.T) {
	srv := startCluster(t, replication.EmbeddedConfig{}, "n1")[0]
	urls := []string{srv.ClientURL()}
	a, am := openNode(t, urls, "n1", replication.Layout{Prefix: "A", Streams: 1, Replicas: 1}, replication.ClientAuth{})
	b, bm := openNode(t, urls, "n1", replication.Layout{Prefix: "B", Streams: 1, Replicas: 1}, replication.ClientAuth{})
	requireReplicated(t, "seen", []*replication.Log{a}, []interface{ Has(key, item string) bool }{am})
	requireReplicated(t, "other", []*replication.Log{b}, []interface{ Has(key, item string) bool }{bm})
	assert.False(t, am.Has("other", "u0"), "cluster A applied B's add")
	assert.False(t, bm.Has("seen", "u0"), "cluster B applied A's add")
	for _, name := range []string{"A_LOG_00", "B_LOG_00"} {
		si, err := a.JetStream().StreamInfo(name)
		require.NoError(t, err)
		assert.Equal(t, []string{strings.ToLower(name[:1]) + ".log.00"}, si.Config.Subjects)
	}
	_, err := a.JetStream().StreamInfo("MBF_LOG_00")
	require.ErrorIs(t, err, nats.ErrStreamNotFound)
}
