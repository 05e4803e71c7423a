// Package metrics serves a mmapbloom server's counts in Prometheus's
// text format with github.com/prometheus/client_golang. It lives apart
// from the server and the library so that a program importing only
// those compiles no Prometheus package.
package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mmapbloom/mmapbloom/tools/server"
)

// Namespace prefixes every metric of the server.
const Namespace = "mmapbloom"

// Collector is a prometheus.Collector of a server's Stats, read at each
// scrape (the server counts with atomics; nothing is kept here).
type Collector struct {
	stats func() server.Stats
}

// NewCollector returns a Collector of srv.
func NewCollector(srv *server.Server) *Collector { return &Collector{stats: srv.Stats} }

// Describe sends the descriptors of the metrics Collect sends (without
// collecting: registration reads no stats).
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range descs {
		ch <- d
	}
}

// Collect sends the server's metrics, read now.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	collectCommands(ch, st)
	collectErrors(ch, st)
	collectServer(ch, st)
	collectFilters(ch, st)
	if st.Replica {
		collectReplication(ch, st)
	}
	if st.Failover {
		collectLeases(ch, st)
		collectHolders(ch, st)
	}
	collectLog(ch, st)
	collectFileSystems(ch, st)
}

// Handler returns the /metrics handler of srv: its metrics, Go's
// runtime's and the process's, in Prometheus's exposition formats.
func Handler(srv *server.Server) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(srv), collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// Endpoint is a running metrics HTTP server.
type Endpoint struct {
	hs   *http.Server
	done chan error
}

// Serve serves srv's metrics at /metrics on ln until Close.
func Serve(ln net.Listener, srv *server.Server) *Endpoint {
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(srv))
	e := &Endpoint{hs: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan error, 1)}
	go func() { e.done <- e.hs.Serve(ln) }()
	return e
}

// Close stops the endpoint, waiting up to 5 s for scrapes in progress.
func (e *Endpoint) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.hs.Shutdown(ctx)
	if serr := <-e.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
