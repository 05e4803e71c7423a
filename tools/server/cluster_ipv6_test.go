package server

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// needOrSkip fails the test with CI=true, else skips it, with msg.
func needOrSkip(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestClusterIPv6Endpoints: nodes on [::1] are written as Redis writes
// them, `::1:PORT` with no brackets, in MOVED and CLUSTER NODES, the host
// alone in CLUSTER SLOTS and SHARDS, so that redis-cli -c, which splits
// a MOVED address at its last colon, follows. Before, MOVED and CLUSTER
// NODES said `[::1]:PORT` and redis-cli -c failed.
func TestClusterIPv6Endpoints(t *testing.T) {
	lns := make([]net.Listener, 2)
	for i := range lns {
		ln, err := net.Listen("tcp", "[::1]:0")
		if err != nil {
			needOrSkip(t, fmt.Sprintf("no IPv6 loopback: %v", err))
		}
		lns[i] = ln
	}
	conf := t.TempDir() + "/nodes.conf"
	addrs := []string{lns[0].Addr().String(), lns[1].Addr().String()}
	require.True(t, strings.HasPrefix(addrs[0], "[::1]:"), addrs[0])
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf("node1 %s 0-8191\nnode2 %s 8192-16383\n", addrs[0], addrs[1])), 0o644))
	for i, ln := range lns {
		startNode(t, ln, memDir(t), conf, fmt.Sprintf("node%d", i+1))
	}
	ports := []string{strconv.Itoa(lns[0].Addr().(*net.TCPAddr).Port), strconv.Itoa(lns[1].Addr().(*net.TCPAddr).Port)}
	rdb, c := dial(t, addrs[0], ""), ctx(t)
	key := keysIn(1, 8192, 16383)[0]
	assert.EqualError(t, rdb.BFAdd(c, key, "x").Err(),
		fmt.Sprintf("MOVED %d ::1:%s", cluster.KeySlot([]byte(key)), ports[1]))
	nodes, err := rdb.ClusterNodes(c).Result()
	require.NoError(t, err)
	assert.Contains(t, nodes, "node1 ::1:"+ports[0]+"@")
	assert.Contains(t, nodes, "node2 ::1:"+ports[1]+"@")
	//lint:ignore SA1019 CLUSTER SLOTS (deprecated in Redis 7) is under test
	slots, err := rdb.ClusterSlots(c).Result()
	require.NoError(t, err)
	require.Len(t, slots, 2)
	assert.Equal(t, "[::1]:"+ports[1], slots[1].Nodes[0].Addr, "go-redis joins host ::1 and the port")

	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		needOrSkip(t, "redis-cli not found: apt-get install redis-tools")
	}
	out, err := testkit.Command(t, cli, "-h", "::1", "-p", ports[0], "-c", "BF.ADD", key, "y").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1", strings.TrimSpace(string(out)), "redis-cli -c followed MOVED to node2")
	ok, err := dial(t, addrs[1], "").BFExists(c, key, "y").Result()
	require.NoError(t, err)
	assert.True(t, ok)
}
