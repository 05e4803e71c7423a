package natstest

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS cluster running inside the test process.
type Embedded struct {
	Servers []*server.Server
	opts    []*server.Options
}

// StartEmbedded starts an n-server JetStream cluster named "T" in the
// test process, servers "n1".."nN", and stops it at the test's end.
func StartEmbedded(t testing.TB, n int) *Embedded {
	t.Helper()
	routePorts := FreePorts(t, n)
	var routes []string
	for _, p := range routePorts {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	dir := t.TempDir()
	e := &Embedded{}
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "T", Host: "127.0.0.1", Port: routePorts[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		}
		e.opts = append(e.opts, o)
		e.Servers = append(e.Servers, e.start(t, o))
	}
	t.Cleanup(e.Shutdown)
	return e
}

func (e *Embedded) start(t testing.TB, o *server.Options) *server.Server {
	t.Helper()
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatalf("natstest: server %s: %v", o.ServerName, err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		t.Fatalf("natstest: server %s not ready in 30 s", o.ServerName)
	}
	return s
}

// URLs returns the client URLs of the running servers, comma-separated
// (nats.Connect's form).
func (e *Embedded) URLs() string {
	var urls []string
	for _, s := range e.Servers {
		if s.Running() {
			urls = append(urls, s.ClientURL())
		}
	}
	return strings.Join(urls, ",")
}

// Stop shuts server i down (its store stays, Restart starts it again).
func (e *Embedded) Stop(i int) {
	e.Servers[i].Shutdown()
	e.Servers[i].WaitForShutdown()
}

// Restart starts server i again on its store, route port and client
// port.
func (e *Embedded) Restart(t testing.TB, i int) {
	t.Helper()
	o := e.opts[i].Clone()
	o.Port = e.Servers[i].Addr().(*net.TCPAddr).Port
	e.Servers[i] = e.start(t, o)
}

// Shutdown stops every server.
func (e *Embedded) Shutdown() {
	for _, s := range e.Servers {
		s.Shutdown()
	}
	for _, s := range e.Servers {
		s.WaitForShutdown()
	}
}
