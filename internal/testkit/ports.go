package testkit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ports for the servers a test starts by address (cluster configs,
// nats-server routes, metrics endpoints), which cannot listen on port 0.
// A port found free by listening on port 0 comes from the kernel's
// ephemeral range, where every outgoing connection of every process also
// takes its source port: between the check and the server's bind, a
// client elsewhere can hold it, and the server exits with "address already
// in use" (seen at load 30 as clusters that never listened). FreeAddr
// picks below that range instead, where only listeners take ports, and
// reserves each port it gives for the test's lifetime against every other
// test process by an flock on a file named after it.

// portsLow is the lowest port FreeAddr gives; the ports of the benches
// and of services that run beside tests (6379, 4222, 7100...) are below.
const portsLow = 20000

// portTries bounds how many ports FreeAddr tries.
const portTries = 200

// FreeAddr returns "127.0.0.1:PORT" with PORT free on 127.0.0.1 now,
// below the kernel's ephemeral range (net.ipv4.ip_local_port_range) and
// reserved by no other test until this test ends. Where that range leaves
// no room below it, it falls back to a port of the ephemeral range.
func FreeAddr(t testing.TB) string {
	t.Helper()
	hi := ephemeralLow()
	if hi-portsLow < 1000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		return ln.Addr().String()
	}
	dir := filepath.Join(os.TempDir(), "mmapbloom-test-ports")
	require.NoError(t, os.MkdirAll(dir, 0o777))
	for range portTries {
		port := portsLow + rand.IntN(hi-portsLow)
		if addr, ok := reservePort(t, dir, port); ok {
			return addr
		}
	}
	t.Fatalf("testkit: no free port below %d in %d tries", hi, portTries)
	return ""
}

// reservePort takes port's lock file without waiting (held until the
// test ends) and checks that 127.0.0.1:port is free; false if another
// test holds it or a process listens there.
func reservePort(t testing.TB, dir string, port int) (string, bool) {
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	require.NoError(t, err)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		require.True(t, errors.Is(err, syscall.EWOULDBLOCK), "flock %s: %v", f.Name(), err)
		return "", false
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = f.Close()
		return "", false
	}
	require.NoError(t, ln.Close())
	t.Cleanup(func() { _ = f.Close() })
	return addr, true
}

// ephemeralLow returns the first port of the kernel's ephemeral range
// (32768, Linux's default, when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32768
	}
	return low
}
