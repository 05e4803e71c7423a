package server

import (
	"context"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// startServer starts a server on 127.0.0.1 with a free port over a new
// temporary directory (cfg.Dir if set) and stops it when the test ends.
func startServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	if cfg.FilterIdle == 0 {
		cfg.FilterIdle = -1
	}
	s, err := New(cfg)
	require.NoError(t, err)
	return s, serveOn(t, s)
}

// serveOn serves s on a free port of 127.0.0.1 until the test ends.
func serveOn(t *testing.T, s *Server) string { return serveOnB(t, s) }

// serveOnB is serveOn for tests and benchmarks.
func serveOnB(t testing.TB, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveLn(t, s, ln)
	return ln.Addr().String()
}

// serveLn serves s on ln until the test ends.
func serveLn(t testing.TB, s *Server, ln net.Listener) {
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, s.Shutdown())
		require.NoError(t, <-done)
	})
}

// dial returns a go-redis client of addr speaking RESP2, the replies
// the tests assert (dialProto chooses; bf_test.go's TestGoRedisHelpers
// and bf_replies_test.go cover RESP3), closed when the test ends. Its
// read timeout is the tests' context bound (ctx): a 1,000-command
// pipeline that creates sets took over 30 s on a 2-core machine at
// load 12 (TestFoldCrawl), and a hung server still fails the test
// through the context.
func dial(t *testing.T, addr, password string) *redis.Client {
	t.Helper()
	return dialProto(t, addr, password, 2)
}

// dialProto is dial speaking RESP protocol version proto (2 or 3).
func dialProto(t *testing.T, addr, password string, proto int) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: password, Protocol: proto,
		DialTimeout: 5 * time.Second, ReadTimeout: 2 * time.Minute, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// ctx is the tests' context, bounded so that a hung server fails a test.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}
