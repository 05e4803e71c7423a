package server

import (
	"cmp"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/replication/lease/leasetest"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateDrain is a Drain that records its calls and returns only once
// the test opens it.
type gateDrain struct {
	mu    sync.Mutex
	calls map[string][]cluster.Range
	open  chan struct{}
}

func (g *gateDrain) drain(node string) func(context.Context, []cluster.Range) error {
	return func(ctx context.Context, slots []cluster.Range) error {
		g.mu.Lock()
		g.calls[node] = slots
		g.mu.Unlock()
		select {
		case <-g.open:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TestFailoverLeases: a primary cut off from NATS stops renewing its
// lease and answers CLUSTERDOWN, never OK; a replica takes the shard,
// answers TRYAGAIN until its log is drained, then serves it, and every
// node's CLUSTER SLOTS and MOVED name it; the old primary, back, is its
// replica. No config edit.
func TestFailoverLeases(t *testing.T) {
	testkit.Nemesis(t)
	const ttl = time.Second
	kv := leasetest.Embedded(t, ttl)
	kvs := map[string]*leasetest.Cuttable{"node1": {KV: kv}, "node2": {KV: kv}, "node3": {KV: kv}}
	g := &gateDrain{calls: map[string][]cluster.Range{}, open: make(chan struct{})}
	close(g.open) // the config owner's first drain
	tc := startCluster(t, []string{"0-16383", "replica-of node1", "replica-of node1"}, func(c *Config) {
		c.Failover = &Failover{KV: kvs[c.NodeID], TTL: ttl, Drain: g.drain(c.NodeID)}
	})
	c := ctx(t)
	n1, n2, n3 := dial(t, tc.addrs[0], ""), dial(t, tc.addrs[1], ""), dial(t, tc.addrs[2], "")
	require.Eventually(t, func() bool { return n1.Do(c, "BF.ADD", "k", "a").Err() == nil }, time.Minute, 20*time.Millisecond)
	assert.Equal(t, []cluster.Range{{Start: 0, End: 16383}}, g.calls["node1"])
	assertOwner(t, c, n3, "node1", tc.addrs[0])

	g.open = make(chan struct{})
	kvs["node1"].SetCut(true)
	require.Eventually(t, func() bool {
		return strings.HasPrefix(errText(n1.Do(c, "BF.ADD", "k", "b").Err()), "CLUSTERDOWN")
	}, time.Minute, 20*time.Millisecond, "a primary that cannot renew stops taking writes")

	var owner *redis.Client
	var ownerAddr, ownerID string
	require.Eventually(t, func() bool {
		for i, cl := range []*redis.Client{n2, n3} {
			if strings.HasPrefix(errText(cl.Do(c, "BF.ADD", "k", "b").Err()), "TRYAGAIN") {
				owner, ownerAddr, ownerID = cl, tc.addrs[i+1], tc.ids[i+1]
				return true
			}
		}
		return false
	}, time.Minute, 20*time.Millisecond, "a replica takes the shard and answers TRYAGAIN while it drains")
	assertOwner(t, c, owner, ownerID, ownerAddr)
	assert.Equal(t, "CLUSTERDOWN The cluster is down", errText(n1.Do(c, "BF.ADD", "k", "b").Err()))
	close(g.open)
	require.Eventually(t, func() bool { return owner.Do(c, "BF.ADD", "k", "b").Err() == nil }, time.Minute, 20*time.Millisecond)

	kvs["node1"].SetCut(false)
	require.Eventually(t, func() bool {
		return errText(n1.Do(c, "BF.ADD", "k", "c").Err()) == "MOVED 7629 "+ownerAddr
	}, time.Minute, 20*time.Millisecond, "the old primary comes back as a replica")
	nodes, err := n1.Do(c, "CLUSTER", "NODES").Text()
	require.NoError(t, err)
	assert.Contains(t, nodes, "node1 "+tc.addrs[0]+"@")
	assert.Contains(t, nodes, "myself,slave "+ownerID)
	info, err := n1.Info(c, "replication").Result()
	require.NoError(t, err)
	assert.Contains(t, info, "role:slave")
	assert.Contains(t, info, "master_port:"+ownerAddr[strings.LastIndex(ownerAddr, ":")+1:])
	realClientsFollow(t, tc.addrs[0])
}

// realClientsFollow checks that redis-cli -c and redis-py's RedisCluster,
// given the old primary's address, reach the new owner: the add made
// there after the failover answers present.
func realClientsFollow(t *testing.T, addr string) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		needOrSkip(t, "redis-cli not found: apt-get install redis-tools")
	}
	out, err := testkit.Command(t, cli, "-h", host, "-p", port, "-c", "BF.EXISTS", "k", "b").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1", strings.TrimSpace(string(out)), "redis-cli -c followed MOVED to the new owner")

	py := cmp.Or(os.Getenv("MMAPBLOOM_PYTHON"), "python3")
	if testkit.Command(t, py, "-c", "import redis.cluster").Run() != nil {
		needOrSkip(t, py+" has no redis-py: apt-get install python3-redis")
	}
	script := "import sys\nfrom redis.cluster import RedisCluster\n" +
		"rc = RedisCluster(host=sys.argv[1], port=int(sys.argv[2]))\n" +
		"print(rc.execute_command('BF.EXISTS', 'k', 'b'))\n"
	out, err = testkit.Command(t, py, "-c", script, host, port).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1", strings.TrimSpace(string(out)), "redis-py's RedisCluster routed to the new owner")
}

// assertOwner checks that cl's CLUSTER SLOTS gives every slot to node id
// at addr, and that a write to another node is MOVED there.
func assertOwner(t *testing.T, c context.Context, cl *redis.Client, id, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		//lint:ignore SA1019 CLUSTER SLOTS (deprecated in Redis 7) is under test
		slots, err := cl.ClusterSlots(c).Result()
		return err == nil && len(slots) == 1 && slots[0].Nodes[0].ID == id
	}, time.Minute, 20*time.Millisecond, "CLUSTER SLOTS names %s", id)
	//lint:ignore SA1019 CLUSTER SLOTS (deprecated in Redis 7) is under test
	slots, err := cl.ClusterSlots(c).Result()
	require.NoError(t, err)
	assert.Equal(t, 0, slots[0].Start)
	assert.Equal(t, 16383, slots[0].End)
	assert.Equal(t, addr, slots[0].Nodes[0].Addr)
	assert.Len(t, slots[0].Nodes, 3, "the owner then its two replicas")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
