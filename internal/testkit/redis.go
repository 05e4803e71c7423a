package testkit

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// redisAttempts is how many free ports RedisServer tries: a port found
// free may still be taken by a process outside the tests before
// redis-server binds it.
const redisAttempts = 10

// RedisServer runs Debian's redis-server on a free loopback port, with
// no persistence, password pass ("" for none) and the extra arguments
// args, killed when the test ends, and returns its address. It answers
// only once the server on that port is the process it started (INFO's
// process_id), so a test never talks to another test's server that won
// the port. Without redis-server the test fails under CI=true and is
// skipped elsewhere.
func RedisServer(t testing.TB, pass string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server not found (apt-get install -y redis-server): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	for i := 0; i < redisAttempts; i++ {
		if addr := FreeAddr(t); startRedis(t, bin, addr, pass, args) {
			return addr
		}
	}
	t.Fatalf("redis-server did not start on any of %d free ports", redisAttempts)
	return ""
}

// startRedis runs one redis-server on addr and waits up to 30 s for it
// to answer as itself; false if it exited (the port was taken) or
// another process answers on the port.
func startRedis(t testing.TB, bin, addr, pass string, args []string) bool {
	argv := append([]string{"--port", addr[strings.LastIndexByte(addr, ':')+1:], "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)
	if pass != "" {
		argv = append(argv, "--requirepass", pass)
	}
	cmd := Process(t, bin, argv...)
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: pass, Protocol: 2, MaxRetries: -1})
	defer rdb.Close()
	for i := 0; i < 300; i++ {
		select {
		case <-exited:
			return false
		case <-time.After(100 * time.Millisecond):
		}
		info, err := rdb.Info(context.Background(), "server").Result()
		if err != nil {
			continue
		}
		if !strings.Contains(info, "process_id:"+strconv.Itoa(cmd.Process.Pid)+"\r\n") {
			stop()
			return false
		}
		t.Cleanup(stop)
		return true
	}
	stop()
	t.Fatal("redis-server did not answer in 30 s")
	return false
}
