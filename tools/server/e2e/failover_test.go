package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// failoverURLs is how many URLs a failover run adds (the kill comes
// after 1,000 to 5,000 of them are acknowledged; the checker sees about
// 10,000), and failoverRate the most it adds per second (a crawler's
// steady rate, not a load test).
const (
	failoverURLs  = 10_000
	failoverRate  = 5_000
	failoverHosts = 500
	failoverBatch = 8
)

// addRecord is one add the writers sent: its key and item, the key's
// slot, when it was sent and its reply came, and whether it was OK.
type addRecord struct {
	key, item string
	slot      int
	sent, at  time.Time
	ok        bool
}

// addJournal is every add sent, in reply order.
type addJournal struct {
	mu   sync.Mutex
	recs []addRecord
	acks atomic.Int64
}

func (j *addJournal) record(cmds []redis.Cmder, sent, at time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cmds {
		a := c.Args()
		key, item := a[1].(string), a[2].(string)
		ok := c.Err() == nil
		j.recs = append(j.recs, addRecord{key: key, item: item, slot: cluster.KeySlot([]byte(key)), sent: sent, at: at, ok: ok})
		if ok {
			j.acks.Add(1)
		}
	}
}

func (j *addJournal) snapshot() []addRecord {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.recs)
}

// failoverURL is the i-th URL of a run and its key (its host's filter).
func failoverURL(i int) (key, url string) {
	host := fmt.Sprintf("h%d.example", i%failoverHosts)
	return "seen:{" + host + "}", fmt.Sprintf("https://%s/p/%d", host, i)
}

// writeURLs adds failoverURLs URLs through cc from writers goroutines in
// pipelines of failoverBatch, at most failoverRate adds a second in
// all, recording every reply in j.
func writeURLs(cc *redis.ClusterClient, writers int, j *addJournal) {
	tick := time.NewTicker(time.Second * failoverBatch / failoverRate)
	defer tick.Stop()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for {
				i := int(next.Add(failoverBatch)) - failoverBatch
				if i >= failoverURLs {
					return
				}
				<-tick.C
				sent := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				cmds, _ := cc.Pipelined(ctx, func(p redis.Pipeliner) error {
					for k := i; k < i+failoverBatch; k++ {
						key, url := failoverURL(k)
						p.BFAdd(ctx, key, url)
					}
					return nil
				})
				cancel()
				j.record(cmds, sent, time.Now())
			}
		})
	}
	wg.Wait()
}

// rangeOf is the index of the replicatedSlots range holding slot.
func rangeOf(slot int) int {
	for i, s := range replicatedSlots {
		r, err := cluster.ParseRanges(s)
		if err == nil && slot <= r[0].End {
			return i
		}
	}
	return -1
}

// busiest is the range with the most acknowledged adds in recs.
func busiest(recs []addRecord) int {
	n := make([]int, len(replicatedSlots))
	for _, r := range recs {
		if r.ok {
			n[rangeOf(r.slot)]++
		}
	}
	return slices.Index(n, slices.Max(n))
}

// acked groups the acknowledged adds of recs by key, keeping those of
// the keys keep accepts.
func acked(recs []addRecord, keep func(slot int) bool) map[string][]string {
	out := map[string][]string{}
	for _, r := range recs {
		if r.ok && keep(r.slot) {
			out[r.key] = append(out[r.key], r.item)
		}
	}
	return out
}

// absent returns how many of the items answer 0 to BF.MEXISTS through
// send (one call per key), and the first error.
func absent(ctx context.Context, send func(ctx context.Context, args ...any) *redis.Cmd, items map[string][]string) (int, error) {
	n := 0
	for key, its := range items {
		args := []any{"BF.MEXISTS", key}
		for _, it := range its {
			args = append(args, it)
		}
		got, err := send(ctx, args...).BoolSlice()
		if err != nil {
			return 0, err
		}
		for _, v := range got {
			if !v {
				n++
			}
		}
	}
	return n, nil
}

// TestFailoverKill9: three serve processes with embedded NATS and lease
// failover; go-redis's ClusterClient (re-reading CLUSTER SLOTS every
// second) adds failoverURLs (10,000) URLs keyed by host at a bounded rate, and the primary of the busiest range is killed with
// kill -9 at a random moment. With no config edit and no command, a
// survivor takes the range; at its first successful reply every add
// whose reply the client received answers present through the client
// (the new primary for the killed range), and then in the other
// survivor's files; restarted, the killed node catches up from the log,
// serves the range's reads as a replica of the new owner and misses no
// key. The write outage (the first failed add to the first add
// acknowledged by the new owner) is logged, not asserted.
func TestFailoverKill9(t *testing.T) {
	testkit.Nemesis(t)
	var outages []time.Duration
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		t.Run(fmt.Sprint(run), func(t *testing.T) { outages = append(outages, failoverRun(t, run)) })
	}
	slices.Sort(outages)
	if len(outages) > 0 {
		t.Logf("write outage over %d runs: median %v, max %v (%v)", len(outages),
			outages[len(outages)/2], outages[len(outages)-1], outages)
	}
}

// failoverRun is one run; the first (run 0) also restarts the killed
// node. It ends with the nemesis suite's checker.
func failoverRun(t *testing.T, run int) time.Duration {
	restart := run == 0
	start := time.Now()
	r := startReplicated(t) // serve's default --lease-ttl, 5 s
	t.Logf("cluster up in %v", time.Since(start))
	cc := r.client(t, time.Second) // re-reads CLUSTER SLOTS every second, as a crawler expecting failovers would
	j := &addJournal{}
	done := make(chan struct{})
	go func() { defer close(done); writeURLs(cc, 8, j) }()

	killAfter := int64(failoverURLs/10 + rand.IntN(failoverURLs*4/10))
	for end := time.Now().Add(3 * time.Minute); j.acks.Load() < killAfter && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
	victim := busiest(j.snapshot())
	require.NoError(t, r.nodes[victim].cmd.Process.Kill())
	_ = r.nodes[victim].cmd.Wait()
	killedAt := time.Now() // an add sent after it was answered by another node
	<-done
	t.Logf("writers done %v after the kill", time.Since(killedAt))
	inRange := func(slot int) bool { return rangeOf(slot) == victim }

	// The first add acknowledged on the new owner: the writers', or a probe's.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	recs := j.snapshot()
	probeKey := recs[slices.IndexFunc(recs, func(a addRecord) bool { return inRange(a.slot) })].key
	for i := 0; !hasAckAfter(j.snapshot(), inRange, killedAt); i++ {
		require.Less(t, i, 3000, "no add of the killed range acknowledged after the kill")
		p, sent := cc.Pipeline(), time.Now()
		p.BFAdd(ctx, probeKey, fmt.Sprintf("probe-%d", i))
		cmds, _ := p.Exec(ctx)
		j.record(cmds, sent, time.Now())
		time.Sleep(50 * time.Millisecond)
	}
	recs = j.snapshot()
	all := acked(recs, func(int) bool { return true })
	missing, err := absent(ctx, cc.Do, all)
	require.NoError(t, err)
	require.Zero(t, missing, "every acknowledged add answers present at the first reply after the failover")

	owner := ownerOf(t, ctx, r, victim)
	outage, sinceKill, fails := outageOf(recs, inRange, killedAt)
	t.Logf("node%d killed at %s after %d acks; node%d took its range; %d adds acknowledged, %d failed; write outage %v (%v from the kill)",
		victim+1, killedAt.Format("15:04:05.000"), killAfter, owner+1, j.acks.Load(), fails, outage, sinceKill)
	for i := range r.nodes {
		if i != victim && i != owner {
			require.Eventually(t, func() bool { return missingIn(r.dirs[i], all) == 0 }, time.Minute, 200*time.Millisecond,
				"node%d, which applies every range, has every acknowledged add", i+1)
		}
	}
	alive := slices.DeleteFunc([]int{0, 1, 2}, func(i int) bool { return i == victim })
	if restart {
		restartedReplica(t, ctx, r, victim, owner, all, acked(recs, inRange))
		alive = []int{0, 1, 2}
	}
	for _, l := range r.logged("failover") {
		t.Log(l)
	}
	nemesisCheck(t, "kill9-primary", run, r, alive, recs)
	return outage
}

// hasAckAfter reports whether an add of a slot keep accepts, sent
// after t, was acknowledged.
func hasAckAfter(recs []addRecord, keep func(int) bool, t time.Time) bool {
	return slices.ContainsFunc(recs, func(a addRecord) bool { return a.ok && keep(a.slot) && a.sent.After(t) })
}

// outageOf returns the write outage: from the first failed add (the
// first of the killed range sent and not acknowledged by its old
// owner: failed, or sent after the kill) to the reply of the first add
// of the range sent after the kill and acknowledged (by the new owner);
// the time from the kill to that reply; and how many adds failed
// (go-redis retries most failures itself).
func outageOf(recs []addRecord, inRange func(int) bool, killedAt time.Time) (outage, sinceKill time.Duration, fails int) {
	firstFail, firstAck := killedAt, time.Time{}
	for _, a := range recs {
		if !a.ok {
			fails++
		}
		if inRange(a.slot) && (!a.ok || a.sent.After(killedAt)) && a.sent.Before(firstFail) {
			firstFail = a.sent
		}
		if a.ok && inRange(a.slot) && a.sent.After(killedAt) && (firstAck.IsZero() || a.at.Before(firstAck)) {
			firstAck = a.at
		}
	}
	return firstAck.Sub(firstFail), firstAck.Sub(killedAt), fails
}

// ownerOf returns the index of the node that owns the range victim now,
// per a survivor's CLUSTER SLOTS; it must be a survivor.
func ownerOf(t *testing.T, ctx context.Context, r *replicated, victim int) int {
	t.Helper()
	first, err := cluster.ParseRanges(replicatedSlots[victim])
	require.NoError(t, err)
	rdb, _ := goRedis(t, r.nodes[(victim+1)%len(r.nodes)].addr, "")
	//lint:ignore SA1019 CLUSTER SLOTS (deprecated in Redis 7) is under test
	slots, err := rdb.ClusterSlots(ctx).Result()
	require.NoError(t, err)
	for _, s := range slots {
		if s.Start <= first[0].Start && first[0].Start <= int(s.End) {
			i := slices.IndexFunc(r.nodes, func(n *served) bool { return n.addr == s.Nodes[0].Addr })
			require.True(t, i >= 0 && i != victim, "a survivor owns the range: %v", s.Nodes)
			return i
		}
	}
	t.Fatalf("no owner of slot %d in %v", first[0].Start, slots)
	return -1
}

// restartedReplica restarts the killed node: it catches up from the
// log, shows itself as the new owner's replica, answers every add of
// its old range on a READONLY connection, and its files come to hold
// every acknowledged add (it applies every range's log, each stream
// at its own pace).
func restartedReplica(t *testing.T, ctx context.Context, r *replicated, victim, owner int, all, mine map[string][]string) {
	t.Helper()
	r.nodes[victim] = r.start(t, victim)
	ro := redis.NewClient(&redis.Options{Addr: r.nodes[victim].addr, ReadTimeout: 30 * time.Second,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
	t.Cleanup(func() { _ = ro.Close() })
	require.Eventually(t, func() bool {
		nodes, err := ro.ClusterNodes(ctx).Result()
		return err == nil && strings.Contains(nodes, fmt.Sprintf("myself,slave node%d", owner+1))
	}, 2*time.Minute, 100*time.Millisecond, "node%d restarted is node%d's replica", victim+1, owner+1)
	require.Eventually(t, func() bool {
		n, err := absent(ctx, ro.Do, mine)
		return err == nil && n == 0
	}, 2*time.Minute, 200*time.Millisecond, "node%d restarted answers every add of its old range as a replica", victim+1)
	require.Eventually(t, func() bool { return missingIn(r.dirs[victim], all) == 0 }, 2*time.Minute, 200*time.Millisecond,
		"node%d restarted has every acknowledged add, of every range, in its files", victim+1)
}

// TestFailoverRealClients: one redis-py RedisCluster, made before the
// kill -9 of node1 (its startup node node2), adds to a key of each range across the failover
// (testdata/serve/redis_cluster_failover.py): with no restart and no
// config edit its adds to node1's range are acknowledged again, by the
// new owner, and every acknowledged one answers present; `redis-cli -c`
// sent to the survivor that does not own the range follows MOVED to the
// new owner and finds them.
func TestFailoverRealClients(t *testing.T) {
	testkit.Nemesis(t)
	py := needTool(t, "/usr/bin/python3", "-c", "import redis.cluster")
	cli := needTool(t, "redis-cli", "--version")
	r := startReplicated(t)
	keys := make([]string, len(replicatedSlots))
	for i, found := 0, 0; found < len(keys); i++ {
		k := fmt.Sprintf("py:{%d}", i)
		if rg := rangeOf(cluster.KeySlot([]byte(k))); keys[rg] == "" {
			keys[rg], found = k, found+1
		}
	}
	stop := filepath.Join(t.TempDir(), "stop")
	w := startLines(t, py, "testdata/serve/redis_cluster_failover.py", port(r.nodes[1].addr), strings.Join(keys, ","), stop)
	w.await(t, func(l string) bool { return strings.HasPrefix(l, "ok "+keys[0]+" py-50") }, "redis-py adds before the kill")
	require.NoError(t, r.nodes[0].cmd.Process.Kill())
	_ = r.nodes[0].cmd.Wait()
	killed := len(w.snapshot())
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(w.snapshot()[killed:], func(l string) bool { return strings.HasPrefix(l, "ok "+keys[0]+" ") })
	}, 3*time.Minute, 50*time.Millisecond, "redis-py's adds to node1's range go on at the new owner")
	require.NoError(t, os.WriteFile(stop, nil, 0o644))
	require.NoError(t, w.cmd.Wait())

	items := map[string][]string{}
	errs := 0
	for _, l := range w.snapshot() {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[0] == "ok":
			items[f[1]] = append(items[f[1]], f[2])
		case len(f) >= 3 && f[0] == "err":
			errs++
		}
	}
	t.Logf("redis-py: %d adds to node1's range acknowledged, %d errors", len(items[keys[0]]), errs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	missing, err := absent(ctx, r.client(t, 0).Do, items)
	require.NoError(t, err)
	require.Zero(t, missing, "every add redis-py saw acknowledged answers present")

	owner := ownerOf(t, ctx, r, 0)
	other := r.nodes[3-owner]
	last := items[keys[0]][len(items[keys[0]])-1]
	out, err := testkit.Command(t, cli, "-h", "127.0.0.1", "-p", port(other.addr), "-c", "BF.EXISTS", keys[0], last).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1", strings.TrimSpace(string(out)), "redis-cli -c follows MOVED to node%d", owner+1)
}

// lines is a client process and the lines of its standard output so
// far (its standard error is logged if the test fails).
type lines struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	mu     sync.Mutex
	out    []string
}

// startLines runs name args... and collects its output lines; the
// process is killed, if still running, when the test ends.
func startLines(t *testing.T, name string, args ...string) *lines {
	t.Helper()
	l := &lines{cmd: testkit.Process(t, name, args...)}
	l.cmd.Stderr = &l.stderr
	stdout, err := l.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, l.cmd.Start())
	t.Cleanup(func() {
		_ = l.cmd.Process.Kill()
		_ = l.cmd.Wait()
		if t.Failed() {
			out := l.snapshot()
			t.Logf("%s: last lines:\n%s\nstandard error:\n%s", name, strings.Join(out[max(0, len(out)-30):], "\n"), l.stderr.String())
		}
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			l.mu.Lock()
			l.out = append(l.out, sc.Text())
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *lines) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.out)
}

// await waits (up to 3 minutes) for a line that ok accepts.
func (l *lines) await(t *testing.T, ok func(string) bool, msg string) {
	t.Helper()
	require.Eventually(t, func() bool { return slices.ContainsFunc(l.snapshot(), ok) }, 3*time.Minute, 50*time.Millisecond, msg)
}
