package e2e_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// startServeCluster runs three `mmapbloom serve --cluster-config`
// subprocesses on free ports of 127.0.0.1. Their ports are known only
// once they listen, so they start on a config with placeholder
// addresses; the real config is then written and applied by SIGHUP
// (which this also tests). It returns the nodes and the config path.
func startServeCluster(t *testing.T) ([]*served, string) {
	t.Helper()
	return startServeNodes(t, []string{"0-5460", "5461-10922", "10923-16383"})
}

// startServeNodes is startServeCluster with node i+1's third field
// slots[i] (SLOTS, or replica-of nodeN) and args for every node.
func startServeNodes(t *testing.T, slots []string, args ...string) ([]*served, string) {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "nodes.conf")
	writeConf := func(addr func(i int) string) {
		var sb strings.Builder
		for i, s := range slots {
			fmt.Fprintf(&sb, "node%d %s %s\n", i+1, addr(i), s)
		}
		require.NoError(t, os.WriteFile(conf, []byte(sb.String()), 0o644))
	}
	writeConf(func(i int) string { return fmt.Sprintf("127.0.0.1:%d", i+1) })
	nodes := make([]*served, len(slots))
	for i := range slots {
		nodes[i] = startServe(t, t.TempDir(), nil, append([]string{"--cluster-config", conf,
			"--node-id", fmt.Sprintf("node%d", i+1), "--default-capacity", "1000"}, args...)...)
	}
	writeConf(func(i int) string { return nodes[i].addr })
	for _, n := range nodes {
		require.NoError(t, n.cmd.Process.Signal(syscall.SIGHUP))
		waitLog(t, n, "cluster config reloaded")
	}
	return nodes, conf
}

// waitLog waits up to 30 s for a log line of n containing want.
func waitLog(t *testing.T, n *served, want string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-n.logs:
			require.True(t, ok, "server exited before logging %q", want)
			if strings.Contains(line, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no log line %q in 30 s", want)
		}
	}
}

// TestServeClusterRedisCLI: a node answers MOVED for a key it does not
// own, and redis-cli -c follows it, whichever node it starts from.
func TestServeClusterRedisCLI(t *testing.T) {
	cli := needTool(t, "redis-cli", "--version")
	nodes, _ := startServeCluster(t)
	run := func(node *served, args ...string) string {
		out, err := testkit.Command(t, cli, append([]string{"-h", "127.0.0.1", "-p", port(node.addr)}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	// somekey is in slot 11058, node3's.
	assert.Equal(t, "MOVED 11058 "+nodes[2].addr, run(nodes[0], "BF.ADD", "somekey", "a"))
	assert.Equal(t, "1", run(nodes[0], "-c", "BF.ADD", "somekey", "a"))
	assert.Equal(t, "1", run(nodes[1], "-c", "BF.EXISTS", "somekey", "a"))
	assert.Equal(t, "0", run(nodes[1], "-c", "BF.EXISTS", "somekey", "b"))
	assert.Equal(t, "1", run(nodes[2], "BF.EXISTS", "somekey", "a"))
	assert.Equal(t, "node2", run(nodes[1], "CLUSTER", "MYID"))
	assert.Contains(t, run(nodes[0], "-c", "CLUSTER", "NODES"), "node1 "+nodes[0].addr+"@")
}

// clusterPyURLs is how many sample URLs TestServeClusterRedisPy sends:
// all 50,000 (18,039 hosts, a set each) took redis-py over the 5
// minutes of testkit.CommandTimeout on a 2-core machine at load 17 to
// 20, on disk and on tmpfs alike, and 10,000 took 150 s; 5,000 (1,598
// hosts) still put hundreds of keys on each of the three nodes.
const clusterPyURLs = 5_000

// TestServeClusterRedisPy: redis-py's RedisCluster adds clusterPyURLs
// sample URLs keyed by host, pipelined, and a fresh RedisCluster finds
// every one (testdata/serve/redis_cluster_check.py).
func TestServeClusterRedisPy(t *testing.T) {
	py := needTool(t, "/usr/bin/python3", "-c", "import redis.cluster")
	nodes, _ := startServeCluster(t)
	urls := filepath.Join(t.TempDir(), "urls.txt")
	sample := sampleURLs(t)[:clusterPyURLs]
	require.NoError(t, os.WriteFile(urls, []byte(strings.Join(sample, "\n")+"\n"), 0o644))
	out, err := testkit.Command(t, py, "testdata/serve/redis_cluster_check.py", port(nodes[1].addr), urls).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, fmt.Sprintf("ok %d\n", clusterPyURLs), string(out))
}

// TestServeClusterBadConfig: serve refuses an unknown node id and an
// overlapping config with a clear error; a SIGHUP with a bad file keeps
// the running config.
func TestServeClusterBadConfig(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "nodes.conf")
	require.NoError(t, os.WriteFile(conf, []byte("a 127.0.0.1:1 0-100\n"), 0o644))
	out, err := testkit.Command(t, binary(t), "serve", "--dir", t.TempDir(), "--addr", "127.0.0.1:0",
		"--cluster-config", conf, "--node-id", "b").CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), `node id not in the cluster config: "b"`)
	require.NoError(t, os.WriteFile(conf, []byte("a 127.0.0.1:1 0-100\nb 127.0.0.1:2 100-200\n"), 0o644))
	out, err = testkit.Command(t, binary(t), "serve", "--dir", t.TempDir(), "--addr", "127.0.0.1:0",
		"--cluster-config", conf, "--node-id", "b").CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "line 2: slot assigned twice: slot 100 of node b already belongs to node a")

	nodes, conf := startServeCluster(t)
	require.NoError(t, os.WriteFile(conf, []byte("node1 127.0.0.1:1 0-16383\nnode2 127.0.0.1:2 0\n"), 0o644))
	require.NoError(t, nodes[0].cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, nodes[0], "SIGHUP: config not reloaded")
	rdb, c := goRedis(t, nodes[0].addr, "")
	assert.EqualError(t, rdb.BFAdd(c, "somekey", "a").Err(), "MOVED 11058 "+nodes[2].addr)
}

// TestServeClusterRedisPyStartupNodeKilled: docs/cluster.md's redis-py
// RedisCluster example (testdata/serve/redis_cluster_docs_example.py
// runs it) keeps adding after its startup node (node1) is killed and
// node1's slots are given to node2: to node1's former slots at node2 and
// to the other nodes' slots, each add acknowledged.
func TestServeClusterRedisPyStartupNodeKilled(t *testing.T) {
	py := needTool(t, "/usr/bin/python3", "-c", "import redis.cluster")
	nodes, conf := startServeCluster(t)
	cmd := testkit.Command(t, py, "testdata/serve/redis_cluster_docs_example.py",
		filepath.Join(testkit.RepoRoot(), "docs", "cluster.md"), port(nodes[0].addr), port(nodes[1].addr), port(nodes[2].addr))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	var before []string
	for sc.Scan() && sc.Text() != "ready" {
		before = append(before, sc.Text())
	}
	require.Equal(t, []string{"ok bar 1", "ok seen:{example.com} 1", "ok somekey 1"}, before, stderr.String())

	require.NoError(t, nodes[0].cmd.Process.Kill())
	_ = nodes[0].cmd.Wait()
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf("node1 %s -\nnode2 %s 0-10922\nnode3 %s 10923-16383\n",
		nodes[0].addr, nodes[1].addr, nodes[2].addr)), 0o644))
	for _, n := range nodes[1:] {
		require.NoError(t, n.cmd.Process.Signal(syscall.SIGHUP))
		waitLog(t, n, "cluster config reloaded")
	}
	_, err = io.WriteString(stdin, "go\n")
	require.NoError(t, err)
	var after []string
	for sc.Scan() {
		after = append(after, sc.Text())
	}
	require.NoError(t, cmd.Wait(), stderr.String())
	assert.Equal(t, []string{"ok bar 1", "ok seen:{example.com} 1", "ok somekey 1"}, after,
		"bar: a new filter at node2, which took node1's slots")
}

// TestClusterDocMigrateRange: the slot range docs/cluster.md's "Moving
// slots to another node" moves holds the key its last step reads, and
// the slot its CLUSTER KEYSLOT line shows is that key's.
func TestClusterDocMigrateRange(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testkit.RepoRoot(), "docs", "cluster.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "## Moving slots to another node")
	require.True(t, ok)
	section, _, _ = strings.Cut(section, "\n```\n")
	mig := regexp.MustCompile(`MBF\.MIGRATE (\d+)-(\d+) `).FindStringSubmatch(section)
	require.NotNil(t, mig, "the MBF.MIGRATE line")
	read := regexp.MustCompile(`BF\.EXISTS '([^']+)'`).FindStringSubmatch(section)
	require.NotNil(t, read, "the BF.EXISTS line")
	lo, _ := strconv.Atoi(mig[1])
	hi, _ := strconv.Atoi(mig[2])
	slot := cluster.KeySlot([]byte(read[1]))
	assert.True(t, lo <= slot && slot <= hi, "slot %d of %s not in the range moved, %d-%d", slot, read[1], lo, hi)
	shown := regexp.MustCompile(`CLUSTER KEYSLOT '([^']+)' +# \(integer\) (\d+)`).FindStringSubmatch(section)
	require.NotNil(t, shown, "the CLUSTER KEYSLOT line")
	assert.Equal(t, []string{read[1], strconv.Itoa(slot)}, shown[1:])
}
