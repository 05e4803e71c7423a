package server

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
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

// fullShapes are the NONSCALING filters (capacity, error rate) the tests
// fill to capacity, as RedisBloom's own tests do: 2 or 3 items at 0.01,
// a classic filter of about 20 or 30 bits and 7 hashes. With a random
// seed an item never added tests present in one of them about once in
// 100 filters (measured: 197 and 229 of 20,000 filters of 3 items), and
// then BF.ADD answers 0 where the full rule's error is expected.
var fullShapes = []store.Spec{{N: 2, P: 0.01}, {N: 3, P: 0.01}}

// fullShapesSeed is the seed fixSeeds gives: with it, every item the
// tests add to or test in a filter of fullShapes answers as in
// RedisBloom's transcripts (whose hash has a fixed seed too).
const fullShapesSeed = 1

// fixSeeds makes s create the fixed filters of fullShapes with seed
// fullShapesSeed instead of a random one, so that their answers are the
// same every run. It goes through the store's shapes (a fixed file's
// header per store.Spec, which the store creates every later file of
// the spec like): the filters are still made by BF.RESERVE or BF.INSERT,
// through mmapbloom.CreateLike. Call it before the test creates them.
func fixSeeds(t testing.TB, s *Server) {
	t.Helper()
	for _, spec := range fullShapes {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("shape-%d-%g.bloom", spec.N, spec.P))
		f, err := mmapbloom.Create(path, spec.N, spec.P, &mmapbloom.CreateOptions{Seed: fullShapesSeed, FixedSeed: true})
		require.NoError(t, err)
		s.store.CreateLike(spec, f.Header())
		require.NoError(t, f.Close())
	}
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

// limitedStore returns a store of dir with the default limits, closed at
// the test's end, for tests of the load code that need no server.
func limitedStore(t testing.TB, dir string) *store.Store {
	t.Helper()
	lim, err := store.NewLimiter(dir, store.Limits{})
	require.NoError(t, err)
	exp, err := store.LoadExpiries(dir, time.Now)
	require.NoError(t, err)
	st := store.New(store.Options{Dir: dir, Sets: store.LibrarySets{}, Limiter: lim, Expiries: exp})
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}
