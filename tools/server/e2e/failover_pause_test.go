package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// pausedAdds is how many adds the new owner acknowledges while the old
// one is stopped, each then asked of the old one on two connections.
const pausedAdds = 200

// TestFailoverSIGSTOP: the owner of a range stopped (SIGSTOP, as a
// frozen container or a long GC pause) past its lease's TTL while
// another node takes the range and acknowledges adds answers none of
// those adds absent when it resumes (SIGCONT): every request already
// in its sockets, on a connection made before the stop or during it,
// answers CLUSTERDOWN or MOVED, or present, never 0; with each
// --lease-read.
func TestFailoverSIGSTOP(t *testing.T) {
	testkit.Nemesis(t)
	for _, read := range []string{"clock", "confirm"} {
		t.Run("lease-read="+read, func(t *testing.T) { pausedOwner(t, "--lease-read", read) })
	}
}

// pausedOwner is TestFailoverSIGSTOP with serve's flags args.
func pausedOwner(t *testing.T, args ...string) {
	r := startReplicated(t, append([]string{"--lease-ttl", "1s"}, args...)...)
	key := ""
	for i := 0; key == ""; i++ {
		if k := fmt.Sprintf("stop:{%d}", i); rangeOf(cluster.KeySlot([]byte(k))) == 0 {
			key = k
		}
	}
	items := make([]string, pausedAdds)
	for i := range items {
		items[i] = fmt.Sprintf("after-stop-%d", i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	old, survivors := servingNode(t, ctx, r, key, "before-stop")
	before := dialRESP(t, old.addr)

	require.NoError(t, old.cmd.Process.Signal(syscall.SIGSTOP))
	t.Cleanup(func() { _ = old.cmd.Process.Signal(syscall.SIGCONT) })
	owner := tookOver(t, ctx, survivors, key, items[0])
	for _, it := range items[1:] {
		require.NoError(t, owner.BFAdd(ctx, key, it).Err())
	}
	during := dialRESP(t, old.addr) // accepted by the kernel while the process is stopped
	for _, c := range []*respConn{before, during} {
		c.send(t, key, items)
	}
	require.NoError(t, old.cmd.Process.Signal(syscall.SIGCONT))

	replies := map[string]int{}
	for _, c := range []*respConn{before, during} {
		for range items {
			replies[c.reply(t)]++
		}
	}
	t.Logf("the old owner's replies to %d requests each on 2 connections: %v", pausedAdds, replies)
	for reply, n := range replies {
		switch {
		case reply == ":0":
			t.Errorf("%d of %d requests (%d adds the new owner acknowledged, each on 2 connections) answered absent by the old owner",
				n, 2*pausedAdds, pausedAdds)
		case reply != ":1" && !strings.HasPrefix(reply, "-CLUSTERDOWN ") && !strings.HasPrefix(reply, "-MOVED "):
			t.Errorf("unexpected reply %q (%d times)", reply, n)
		}
	}
}

// servingNode waits (up to 3 minutes) until a node acknowledges an add
// of item to key, and returns it and the clients of the other nodes: at
// start, under load, the lease of key's range may not yet be with the
// node the configuration names.
func servingNode(t *testing.T, ctx context.Context, r *replicated, key, item string) (*served, []*redis.Client) {
	t.Helper()
	clients := make([]*redis.Client, len(r.nodes))
	for i, n := range r.nodes {
		clients[i], _ = goRedis(t, n.addr, "")
	}
	serving := -1
	require.Eventually(t, func() bool {
		for i, c := range clients {
			if c.BFAdd(ctx, key, item).Err() == nil {
				serving = i
				return true
			}
		}
		return false
	}, 3*time.Minute, 50*time.Millisecond, "a node serves %s", key)
	return r.nodes[serving], append(clients[:serving:serving], clients[serving+1:]...)
}

// tookOver waits (up to 3 minutes) until one of survivors (the nodes
// but the stopped owner of key) acknowledges an add of item to key, and
// returns its client.
func tookOver(t *testing.T, ctx context.Context, survivors []*redis.Client, key, item string) *redis.Client {
	t.Helper()
	var owner *redis.Client
	require.Eventually(t, func() bool {
		for _, s := range survivors {
			if s.BFAdd(ctx, key, item).Err() == nil {
				owner = s
				return true
			}
		}
		return false
	}, 3*time.Minute, 50*time.Millisecond, "a survivor takes node1's range")
	return owner
}

// respConn is a raw RESP connection: requests are written whole while
// the server may be stopped, and the replies read after.
type respConn struct {
	nc net.Conn
	rd *bufio.Reader
}

// dialRESP connects to addr; the connection is closed when the test ends.
func dialRESP(t *testing.T, addr string) *respConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	return &respConn{nc: nc, rd: bufio.NewReader(nc)}
}

// send writes BF.EXISTS key item for each item (about 10 KB in all: the
// socket's buffers hold it while the server reads nothing).
func (c *respConn) send(t *testing.T, key string, items []string) {
	t.Helper()
	var sb strings.Builder
	for _, it := range items {
		fmt.Fprintf(&sb, "*3\r\n$9\r\nBF.EXISTS\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(key), key, len(it), it)
	}
	require.NoError(t, c.nc.SetWriteDeadline(time.Now().Add(time.Minute)))
	_, err := c.nc.Write([]byte(sb.String()))
	require.NoError(t, err)
}

// reply reads one single-line reply (an integer or an error), within 2
// minutes.
func (c *respConn) reply(t *testing.T) string {
	t.Helper()
	require.NoError(t, c.nc.SetReadDeadline(time.Now().Add(2*time.Minute)))
	line, err := c.rd.ReadString('\n')
	require.NoError(t, err)
	return strings.TrimRight(line, "\r\n")
}
