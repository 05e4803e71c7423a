package server

import (
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// testCluster is n in-process nodes on 127.0.0.1 sharing one config.
type testCluster struct {
	conf  string // path of the config file
	ids   []string
	addrs []string
	dirs  []string
	srvs  []*Server
}

// threeRanges splits the slots as redis-cli --cluster create does.
var threeRanges = []string{"0-5460", "5461-10922", "10923-16383"}

// startCluster starts one node per entry of slots (its SLOTS field, or
// "replica-of nodeN") on free ports of 127.0.0.1, stopped when the test
// ends; opts change each node's config.
func startCluster(t testing.TB, slots []string, opts ...func(*Config)) *testCluster {
	t.Helper()
	tc := &testCluster{conf: filepath.Join(t.TempDir(), "nodes.conf")}
	lns := make([]net.Listener, len(slots))
	for i := range slots {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns[i] = ln
		tc.ids = append(tc.ids, fmt.Sprintf("node%d", i+1))
		tc.addrs = append(tc.addrs, ln.Addr().String())
		tc.dirs = append(tc.dirs, memDir(t))
	}
	// go-redis appends to the Addrs it is given: with spare capacity, two
	// ClusterClients made from tc.addrs would write one backing array
	// (a data race in the client, seen in TestClusterMoveBackUnderLoad).
	tc.addrs = slices.Clip(tc.addrs)
	tc.write(t, slots)
	for i, ln := range lns {
		tc.srvs = append(tc.srvs, startNode(t, ln, tc.dirs[i], tc.conf, tc.ids[i], opts...))
	}
	return tc
}

// startNode serves node id of the cluster config conf on ln, over dir,
// until the test ends; opts change its config.
func startNode(t testing.TB, ln net.Listener, dir, conf, id string, opts ...func(*Config)) *Server {
	t.Helper()
	cfg := Config{Dir: dir, ClusterConfig: conf, NodeID: id,
		Log: log.New(io.Discard, "", 0), FilterIdle: 2 * time.Second, DefaultCapacity: 1000}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := New(cfg)
	require.NoError(t, err)
	serveLn(t, s, ln)
	return s
}

// memDir returns a new directory in /dev/shm, removed when the test
// ends, when /dev/shm has 1 GiB free (on tmpfs the thousands of filter
// files the cluster tests create cost no fsync: 120 s less on ext4
// here), else in t.TempDir().
func memDir(t testing.TB) string {
	var st syscall.Statfs_t
	if syscall.Statfs("/dev/shm", &st) != nil || st.Bavail*uint64(st.Bsize) < 1<<30 {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("/dev/shm", "mmapbloom-cluster-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// write writes the config file with node i owning slots[i].
func (tc *testCluster) write(t testing.TB, slots []string) {
	t.Helper()
	var sb strings.Builder
	for i, s := range slots {
		fmt.Fprintf(&sb, "%s %s %s\n", tc.ids[i], tc.addrs[i], s)
	}
	require.NoError(t, os.WriteFile(tc.conf, []byte(sb.String()), 0o644))
}

// client returns a go-redis ClusterClient of the cluster, closed when
// the test ends.
func (tc *testCluster) client(t *testing.T) *redis.ClusterClient {
	t.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tc.addrs[:1:1],
		DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second})
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// hostKey is the crawler's key of url: seen:{host}, the host cut at 190
// bytes so that the key fits keyname.MaxKeyBytes.
func hostKey(url []byte) string {
	s := string(url)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	return "seen:{" + s[:min(len(s), 190)] + "}"
}
