package e2e_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// Failover measurement: adds at failRate a second for failSeconds,
// replica pulling every failInterval.
const (
	failRate     = 2000
	failSeconds  = 3
	failInterval = 500 * time.Millisecond
)

// TestServeReplicaFailover: a replica process pulls its primary every
// 500 ms while a client adds URLs at a fixed rate; the primary is killed
// with SIGKILL, the replica is promoted by a config reload, and then
// answers present for every add acknowledged before the start of its
// last completed pull. The adds acknowledged after it that it lacks are
// the loss the README and BENCHMARKS.md give (at most about rate x
// (interval + one pull's duration)).
func TestServeReplicaFailover(t *testing.T) {
	nodes, conf := startServeNodes(t, []string{"0-16383", "replica-of node1"}, "--pull-interval", failInterval.String())
	primary, replica := nodes[0], nodes[1]
	rdb, c := goRedis(t, primary.addr, "")
	urls := sampleURLs(t)[:failRate*failSeconds]
	key := func(i int) string { return "seen:{part" + strconv.Itoa(i%16) + "}" }
	acked := make([]time.Time, len(urls))
	start := time.Now()
	for i, u := range urls {
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / failRate)))
		require.NoError(t, rdb.BFAdd(c, key(i), u).Err())
		acked[i] = time.Now()
	}
	elapsed := time.Since(start)
	require.NoError(t, primary.cmd.Process.Signal(syscall.SIGKILL))
	_, _ = primary.cmd.Process.Wait()

	r, _ := goRedis(t, replica.addr, "")
	// Waits for a pull in progress; this one fails (no primary).
	require.Error(t, r.Do(c, "MBF.PULL").Err())
	info, err := r.Info(c, "replication").Result()
	require.NoError(t, err)
	ms, err := strconv.ParseInt(infoField(info, "mbf_last_pull_start_unix_ms"), 10, 64)
	require.NoError(t, err)
	require.NotZero(t, ms, info)
	lastPull := time.UnixMilli(ms)

	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf("node2 %s 0-16383\n", replica.addr)), 0o644))
	require.NoError(t, replica.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, replica, "cluster config reloaded")

	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{replica.addr},
		DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second})
	defer cc.Close()
	pipe := cc.Pipeline()
	found := make([]*redis.BoolCmd, len(urls))
	for i, u := range urls {
		found[i] = pipe.BFExists(c, key(i), u)
	}
	_, err = pipe.Exec(c)
	require.NoError(t, err)
	before, after, lost := 0, 0, 0
	for i := range urls {
		if acked[i].Before(lastPull) {
			before++
			require.True(t, found[i].Val(), "add %d acknowledged %v before the last pull's start %v", i, acked[i], lastPull)
			continue
		}
		after++
		if !found[i].Val() {
			lost++
		}
	}
	t.Logf("%d adds in %v (%.0f/s), pull interval %v: %d acknowledged before the last completed pull began, %d after it (the last %v), %d of those lost",
		len(urls), elapsed.Round(time.Millisecond), float64(len(urls))/elapsed.Seconds(), failInterval,
		before, after, acked[len(urls)-1].Sub(lastPull).Round(time.Millisecond), lost)
	assert.Positive(t, before)
	require.NoError(t, cc.BFAdd(c, key(0), "after failover").Err(), "the promoted replica takes writes")
}

// infoField returns the value of field in INFO's text, "" if absent.
func infoField(info, field string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// TestServeReplicaRedisPy: redis-py's RedisCluster(read_from_replicas=True)
// finds the replica and reads from it (testdata/serve/redis_cluster_replica_check.py).
func TestServeReplicaRedisPy(t *testing.T) {
	py := needTool(t, "/usr/bin/python3", "-c", "import redis.cluster")
	nodes, _ := startServeNodes(t, []string{"0-16383", "replica-of node1"}, "--pull-interval", "1h")
	out, err := testkit.Command(t, py, "testdata/serve/redis_cluster_replica_check.py", port(nodes[1].addr), "2000").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "ok 2000\n", string(out))
}
