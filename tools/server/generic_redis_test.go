package server

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// startRedisRef runs Debian's redis-server 7.0 on a free loopback port,
// without persistence, killed when the test (or fuzz target) ends, and
// returns its address. Without redis-server the test fails with
// CI=true and is skipped elsewhere.
func startRedisRef(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server not found (apt-get install -y redis-server): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cmd := testkit.Process(t, bin, "--port", addr[strings.LastIndexByte(addr, ':')+1:], "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--enable-debug-command", "local")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer rdb.Close()
	for i := 0; rdb.Ping(context.Background()).Err() != nil; i++ {
		require.Less(t, i, 300, "redis-server did not answer in 30 s")
		time.Sleep(100 * time.Millisecond)
	}
	return addr
}
