package server

import (
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// TestClusterReplies checks the CLUSTER subcommands, INFO, READONLY and
// the redirections against the shapes of redis-server 7.0.15 in
// cluster mode.
func TestClusterReplies(t *testing.T) {
	tc := startCluster(t, []string{"0-100,200-5460", "5461-10922", "10923-16383"})
	rdb := dial(t, tc.addrs[0], "")
	c := ctx(t)

	//lint:ignore SA1019 CLUSTER SLOTS (deprecated in Redis 7) is under test
	slots, err := rdb.ClusterSlots(c).Result()
	require.NoError(t, err)
	require.Len(t, slots, 4)
	assert.Equal(t, 0, slots[0].Start)
	assert.Equal(t, 100, slots[0].End)
	require.Len(t, slots[0].Nodes, 1)
	assert.Equal(t, "node1", slots[0].Nodes[0].ID)
	assert.Equal(t, tc.addrs[0], slots[0].Nodes[0].Addr)
	assert.Equal(t, 200, slots[1].Start)
	assert.Equal(t, 5460, slots[1].End)
	assert.Equal(t, []int{10923, 16383}, []int{slots[3].Start, slots[3].End})
	assert.Equal(t, tc.addrs[2], slots[3].Nodes[0].Addr)

	shards, err := rdb.ClusterShards(c).Result()
	require.NoError(t, err)
	require.Len(t, shards, 3)
	assert.Equal(t, []redis.SlotRange{{Start: 0, End: 100}, {Start: 200, End: 5460}}, shards[0].Slots)
	require.Len(t, shards[1].Nodes, 1)
	n := shards[1].Nodes[0]
	assert.Equal(t, "node2", n.ID)
	assert.Equal(t, "127.0.0.1", n.IP)
	assert.Equal(t, "master", n.Role)
	assert.Equal(t, "online", n.Health)

	id, err := rdb.ClusterMyID(c).Result()
	require.NoError(t, err)
	assert.Equal(t, "node1", id)
	slot, err := rdb.ClusterKeySlot(c, "somekey").Result()
	require.NoError(t, err)
	assert.EqualValues(t, 11058, slot)

	info, err := rdb.ClusterInfo(c).Result()
	require.NoError(t, err)
	assert.Contains(t, info, "cluster_state:fail\r\n") // slots 101-199 have no owner
	assert.Contains(t, info, "cluster_slots_assigned:16285\r\n")
	assert.Contains(t, info, "cluster_known_nodes:3\r\n")

	nodes, err := rdb.ClusterNodes(c).Result()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(nodes, "\n"), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "node1 "+tc.addrs[0]+"@"+portPlus(t, tc.addrs[0])+" myself,master - 0 0 1 connected 0-100 200-5460", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "node2 "+tc.addrs[1]+"@"), lines[1])
	assert.True(t, strings.HasSuffix(lines[1], " master - 0 0 2 connected 5461-10922"), lines[1])

	all, err := rdb.Info(c, "cluster").Result()
	require.NoError(t, err)
	assert.Contains(t, all, "cluster_enabled:1")
	srv, err := rdb.Info(c, "server").Result()
	require.NoError(t, err)
	assert.Contains(t, srv, "redis_mode:cluster\r\n")
	hello, err := rdb.Do(c, "hello", "2").Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{"mode", "cluster"}, hello[8:10])
	require.NoError(t, rdb.ReadOnly(c).Err())
	require.NoError(t, rdb.ReadWrite(c).Err())

	for _, tt := range []struct {
		args []any
		err  string
	}{
		{[]any{"bf.add", "somekey", "x"}, "MOVED 11058 " + tc.addrs[2]},
		{[]any{"bf.exists", "foo{hash_tag}", "x"}, ""},
		{[]any{"exists", "a", "b"}, "CROSSSLOT Keys in request don't hash to the same slot"},
		{[]any{"exists", "{t}a", "{t}b"}, "MOVED 15891 " + tc.addrs[2]},
		{[]any{"bf.card", keyInSlot(150)}, "CLUSTERDOWN Hash slot not served"},
		{[]any{"cluster", "keyslot"}, "ERR wrong number of arguments for 'cluster|keyslot' command"},
		{[]any{"cluster", "foo"}, "ERR unknown subcommand 'foo'. Try CLUSTER HELP."},
		{[]any{"cluster", "countkeysinslot", "16384"}, "ERR Invalid slot"},
	} {
		err := rdb.Do(c, tt.args...).Err()
		if tt.err == "" {
			assert.NoError(t, err, "%v", tt.args)
		} else {
			assert.EqualError(t, err, tt.err, "%v", tt.args)
		}
	}
	require.NoError(t, rdb.BFAdd(c, "foo{hash_tag}", "x").Err())
	cnt, err := rdb.ClusterCountKeysInSlot(c, 2515).Result()
	require.NoError(t, err)
	assert.EqualValues(t, 1, cnt)
	keys, err := rdb.ClusterGetKeysInSlot(c, 2515, 10).Result()
	require.NoError(t, err)
	assert.Equal(t, []string{"foo{hash_tag}"}, keys)
}

// TestClusterDisabled: without a config the cluster commands answer as
// a standalone Redis does.
func TestClusterDisabled(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb := dial(t, addr, "")
	c := ctx(t)
	for _, args := range [][]any{{"cluster", "slots"}, {"readonly"}, {"mbf.migrate", "0-1", "/tmp"}} {
		assert.EqualError(t, rdb.Do(c, args...).Err(), "ERR This instance has cluster support disabled")
	}
	info, err := rdb.Info(c, "cluster").Result()
	require.NoError(t, err)
	assert.Contains(t, info, "cluster_enabled:0")
	require.NoError(t, rdb.Do(c, "exists", "a", "b").Err())
}

// TestClusterConfigErrors: New refuses a bad config or an unknown node
// id; a reload of a bad file keeps the running config.
func TestClusterConfigErrors(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nodes.conf")
	require.NoError(t, os.WriteFile(conf, []byte("a 127.0.0.1:1 0-10\nb 127.0.0.1:2 10-20\n"), 0o644))
	_, err := New(Config{Dir: dir, ClusterConfig: conf, NodeID: "a"})
	require.ErrorIs(t, err, cluster.ErrOverlap)
	require.NoError(t, os.WriteFile(conf, []byte("a 127.0.0.1:1 0-16383\n"), 0o644))
	_, err = New(Config{Dir: dir, ClusterConfig: conf, NodeID: "z"})
	require.ErrorIs(t, err, cluster.ErrUnknownNode)
	_, err = New(Config{Dir: dir, ClusterConfig: conf})
	require.ErrorIs(t, err, ErrNotCluster)

	tc := startCluster(t, threeRanges)
	rdb := dial(t, tc.addrs[0], "")
	c := ctx(t)
	require.NoError(t, os.WriteFile(tc.conf, []byte("garbage\n"), 0o644))
	require.ErrorContains(t, rdb.Do(c, "cluster", "reload").Err(), "line 1: bad cluster config line")
	tc.write(t, []string{"0-16383", "-", "-"})
	require.NoError(t, rdb.Do(c, "cluster", "reload").Err())
	require.NoError(t, rdb.BFAdd(c, "somekey", "x").Err()) // slot 11058 is node1's now
	assert.ErrorIs(t, (&Server{}).Reload(), ErrNotCluster)
}

// TestClusterGoRedis: go-redis's ClusterClient adds the 50,000 sample
// URLs keyed by host (seen:{host}), pipelined; a fresh client finds
// every one; each node's directory holds exactly the keys of its slots.
func TestClusterGoRedis(t *testing.T) {
	urls := testkit.Lines(t, filepath.Join(testkit.RepoRoot(), "testdata", "phishing-sample.txt.gz"))
	// Fixed filters (DefaultExpansion 0) refuse new items once full, as
	// RedisBloom's NONSCALING filters: room for the busiest host of the
	// sample (69.167.151.209, 1,459 URLs).
	tc := startCluster(t, threeRanges, func(cfg *Config) { cfg.DefaultCapacity = 2000 })
	c := ctx(t)
	add := tc.client(t)
	const chunk = 1000
	for i := 0; i < len(urls); i += chunk {
		_, err := add.Pipelined(c, func(p redis.Pipeliner) error {
			for _, u := range urls[i:min(i+chunk, len(urls))] {
				p.BFAdd(c, hostKey(u), u)
			}
			return nil
		})
		require.NoError(t, err)
	}
	test := tc.client(t)
	missing := 0
	for i := 0; i < len(urls); i += chunk {
		cmds, err := test.Pipelined(c, func(p redis.Pipeliner) error {
			for _, u := range urls[i:min(i+chunk, len(urls))] {
				p.BFExists(c, hostKey(u), u)
			}
			return nil
		})
		require.NoError(t, err)
		for _, cmd := range cmds {
			if !cmd.(*redis.BoolCmd).Val() {
				missing++
			}
		}
	}
	assert.Zero(t, missing, "URLs a fresh client does not find")

	want := make([][]string, len(tc.srvs))
	seen := map[string]bool{}
	m, err := cluster.Load(tc.conf)
	require.NoError(t, err)
	for _, u := range urls {
		k := hostKey(u)
		if seen[k] {
			continue
		}
		seen[k] = true
		owner := m.Owner(cluster.KeySlot([]byte(k)))
		for i, id := range tc.ids {
			if owner.ID == id {
				want[i] = append(want[i], k)
			}
		}
	}
	for i, s := range tc.srvs {
		got, err := s.store.Keys()
		require.NoError(t, err)
		sort.Strings(want[i])
		assert.Equal(t, want[i], got, "keys in %s's directory", tc.ids[i])
		assert.NotEmpty(t, got)
	}
}

// keyInSlot returns a key of slot: the first of k0, k1, ... in it (one
// in 16384 is, so the search is short; it gives up after 10^6).
func keyInSlot(slot int) string {
	for i := 0; i < 1_000_000; i++ {
		if k := "k" + strconv.Itoa(i); cluster.KeySlot([]byte(k)) == slot {
			return k
		}
	}
	panic("no key found for the slot")
}

// portPlus returns the port of addr plus 10,000 (the cluster bus port
// Redis shows in CLUSTER NODES).
func portPlus(t *testing.T, addr string) string {
	_, p, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return strconv.Itoa(n + 10000)
}
