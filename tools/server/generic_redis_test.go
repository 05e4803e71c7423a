package server

import (
	"testing"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// startRedisRef runs Debian's redis-server 7.0 as the reference the
// server's replies are compared with (testkit.RedisServer, with DEBUG
// allowed from loopback) and returns its address.
func startRedisRef(t testing.TB) string {
	t.Helper()
	return testkit.RedisServer(t, "", "--enable-debug-command", "local")
}
