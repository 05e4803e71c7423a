package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/metrics"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// replicated is a three-node `serve --replication jetstream` cluster
// with embedded NATS.
type replicated struct {
	nodes []*served
	dirs  []string
	conf  string
	args  [][]string
	// metrics and monitor are each node's /metrics and embedded
	// nats-server monitoring addresses (--metrics-addr,
	// --nats-monitor-addr).
	metrics, monitor []string

	mu  sync.Mutex
	log []string // the nodes' stderr lines after their listening lines
}

var replicatedSlots = []string{"0-5460", "5461-10922", "10923-16383"}

// startReplicated starts the three nodes, each on a free port of
// 127.0.0.1 with its embedded nats-server's routes on another (the
// config's nats=), with the flags extra, and waits until every node
// answers a write of its own slots.
func startReplicated(t *testing.T, extra ...string) *replicated {
	t.Helper()
	r := newReplicated(t, extra...)
	r.startAll(t)
	return r
}

// newReplicated configures the three nodes of startReplicated (their
// config file, directories, addresses and flags) without starting them.
func newReplicated(t *testing.T, extra ...string) *replicated {
	t.Helper()
	natstest.RequireEmbedded(t) // the serve binary is built for the same GOARCH
	r := &replicated{conf: filepath.Join(t.TempDir(), "nodes.conf")}
	var sb strings.Builder
	for i, s := range replicatedSlots {
		addr, routes := freeAddr(t), freeAddr(t)
		fmt.Fprintf(&sb, "node%d %s %s nats=%s\n", i+1, addr, s, routes)
		r.dirs = append(r.dirs, t.TempDir())
		r.metrics, r.monitor = append(r.metrics, freeAddr(t)), append(r.monitor, freeAddr(t))
		r.args = append(r.args, append([]string{"--addr", addr, "--cluster-config", r.conf, "--node-id", fmt.Sprintf("node%d", i+1),
			"--default-capacity", "100000", "--replication", "jetstream", "--replication-streams", "4",
			"--metrics-addr", r.metrics[i], "--nats-monitor-addr", r.monitor[i]}, extra...))
	}
	require.NoError(t, os.WriteFile(r.conf, []byte(sb.String()), 0o644))
	return r
}

// startAll starts every node of r and waits until each answers a write
// of its own slots.
func (r *replicated) startAll(t *testing.T) {
	t.Helper()
	for i := range r.args {
		r.nodes = append(r.nodes, r.start(t, i))
	}
	cc := r.client(t, 0)
	for i, k := range []string{"probe:{a}", "probe:{b}", "probe:{c}"} {
		require.Eventually(t, func() bool { return cc.BFAdd(context.Background(), k, "x").Err() == nil },
			2*time.Minute, 100*time.Millisecond, "node %d takes writes through the log", i+1)
	}
}

// start starts node i (again) on its directory and address; its log
// lines go to r.log (a node whose stderr is not read would block).
func (r *replicated) start(t *testing.T, i int) *served {
	n := startServe(t, r.dirs[i], nil, r.args[i]...)
	go func() {
		for line := range n.logs {
			r.mu.Lock()
			r.log = append(r.log, fmt.Sprintf("node%d: %s", i+1, line))
			r.mu.Unlock()
		}
	}()
	return n
}

// logged returns the nodes' log lines holding sub.
func (r *replicated) logged(sub string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.log {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// client is a go-redis ClusterClient of the nodes; reload, when not 0,
// is its ClusterStateReloadInterval (go-redis's default: 10 s).
func (r *replicated) client(t *testing.T, reload time.Duration) *redis.ClusterClient {
	var addrs []string
	for _, n := range r.nodes {
		addrs = append(addrs, n.addr)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRedirects: 16, MaxRetries: 2,
		DialTimeout: 2 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		ClusterStateReloadInterval: reload})
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// missingIn returns how many acknowledged adds the files of the node
// with data directory dir lack (read through the library, as a local
// reader would: a filter or a set, openFilter); a key whose file does not
// open counts all its adds.
func missingIn(dir string, acked map[string][]string) int {
	missing := 0
	for key, items := range acked {
		f, err := openFilter(dir, key)
		if err != nil {
			missing += len(items)
			continue
		}
		for _, it := range items {
			if ok, err := f.TestString(it); err != nil || !ok {
				missing++
			}
		}
		_ = f.Close()
	}
	return missing
}

// addUntil adds URLs through cc from writers goroutines, in pipelines
// of 16 BF.ADDs, until total were sent or stop is closed, and returns
// the adds whose reply was OK, by key.
func addUntil(cc *redis.ClusterClient, writers, total int, acks *atomic.Int64, stop <-chan struct{}) map[string][]string {
	var mu sync.Mutex
	acked := map[string][]string{}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w * 16; i < total; i += writers * 16 {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				cmds, _ := cc.Pipelined(ctx, func(p redis.Pipeliner) error {
					for j := i; j < i+16; j++ {
						p.BFAdd(ctx, fmt.Sprintf("seen:{h%d}", j%64), fmt.Sprintf("https://h%d.example/%d", j%64, j))
					}
					return nil
				})
				cancel()
				mu.Lock()
				for _, c := range cmds {
					if c.Err() == nil {
						a := c.Args()
						acked[a[1].(string)] = append(acked[a[1].(string)], a[2].(string))
						acks.Add(1)
					}
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	return acked
}

// Three serve nodes with embedded NATS: go-redis's ClusterClient adds
// URLs while node1 is killed with kill -9; every add acknowledged
// before or after is in the files of both survivors (they apply every
// stream), and node1, restarted on its directory, replays the log from
// its recorded position and has every one too.
func TestReplicationKill9(t *testing.T) {
	testkit.Nemesis(t)
	r := startReplicated(t)
	cc := r.client(t, 0)
	var acks atomic.Int64
	done, stop := make(chan map[string][]string), make(chan struct{})
	go func() { done <- addUntil(cc, 4, 6000, &acks, stop) }()
	// The kill comes after 1,500 acknowledged adds. The writers stop after
	// 6,000 sent: a cluster that acknowledged fewer held this loop until
	// go test's timeout ended the whole nemesis step; 3 minutes bound it.
	for end := time.Now().Add(3 * time.Minute); acks.Load() < 1500; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			close(stop)
			<-done
			t.Fatalf("%d adds acknowledged in 3 minutes, not 1,500", acks.Load())
		}
	}
	require.NoError(t, r.nodes[0].cmd.Process.Kill())
	_ = r.nodes[0].cmd.Wait()
	time.Sleep(3 * time.Second) // adds to the survivors' slots go on
	close(stop)
	acked := <-done
	n := 0
	for _, v := range acked {
		n += len(v)
	}
	t.Logf("%d adds acknowledged (node1 killed after 1,500)", n)
	require.Greater(t, n, 1500)
	for _, i := range []int{1, 2} {
		require.Eventually(t, func() bool { return missingIn(r.dirs[i], acked) == 0 }, time.Minute, 200*time.Millisecond,
			"node%d has every acknowledged add (%d missing)", i+1, missingIn(r.dirs[i], acked))
	}
	r.nodes[0] = r.start(t, 0)
	require.Eventually(t, func() bool { return missingIn(r.dirs[0], acked) == 0 }, 2*time.Minute, 200*time.Millisecond,
		"node1 restarted has every acknowledged add")
}

// WAIT counts the nodes that applied and synced this connection's
// writes; WAITAOF syncs locally first; INFO replication gives every
// node's position and lag.
func TestReplicationWaitAndInfo(t *testing.T) {
	r := startReplicated(t)
	rdb, ctx := goRedis(t, r.nodes[1].addr, "")
	key := "seen:" // a key of node2's slots
	for i := 0; cluster.KeySlot([]byte(key)) < 5461 || cluster.KeySlot([]byte(key)) > 10922; i++ {
		key = fmt.Sprintf("seen:%d", i)
	}
	require.NoError(t, rdb.BFAdd(ctx, key, "https://example.com/").Err())
	assert.EqualValues(t, 2, rdb.Do(ctx, "WAIT", 2, 60000).Val(), "both other nodes applied the write")
	aof, err := rdb.Do(ctx, "WAITAOF", 1, 2, 60000).Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{int64(1), int64(2)}, aof)
	info := rdb.Info(ctx, "replication").Val()
	for _, want := range []string{"mbf_replication:jetstream", "mbf_log_applied_node1:", "mbf_log_lag_node3:"} {
		assert.Contains(t, info, want)
	}
	require.Eventually(t, func() bool {
		info := rdb.Info(ctx, "replication").Val()
		return strings.Contains(info, "mbf_log_lag_node1:0\r\n") && strings.Contains(info, "mbf_log_lag_node3:0\r\n") &&
			!strings.Contains(info, "mbf_log_applied_node3:0\r\n")
	}, time.Minute, 100*time.Millisecond, "every node applied its streams")
	requireFigures(t, r)
	err = rdb.Do(ctx, "WAITAOF", 2, 0, 0).Err()
	assert.True(t, err != nil && !errors.Is(err, redis.Nil), "numlocal 2 refused")
}

// requireFigures checks node2's /metrics (its streams' figures, the
// lease holders, the file systems) and each node's nats-server
// monitoring endpoint.
func requireFigures(t *testing.T, r *replicated) {
	t.Helper()
	fams, err := metrics.Scrape("http://" + r.metrics[1] + "/metrics")
	require.NoError(t, err)
	for _, name := range []string{"mmapbloom_log_applied_sequence", "mmapbloom_log_lag_entries", "mmapbloom_log_stopped",
		"mmapbloom_log_apply_errors_total", "mmapbloom_log_rewinds_total", "mmapbloom_log_stalls_total", "mmapbloom_lease_holder", "mmapbloom_filesystem_free_bytes", "mmapbloom_filesystem_used_bytes"} {
		assert.Contains(t, fams, name)
	}
	if fam := fams["mmapbloom_filesystem_free_bytes"]; fam != nil {
		assert.Len(t, fam.Metric, 2, "data and log")
	}
	hc := &http.Client{Timeout: time.Minute}
	for i, addr := range r.monitor {
		resp, err := hc.Get("http://" + addr + "/healthz")
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode, "node%d's nats-server /healthz", i+1)
	}
}
