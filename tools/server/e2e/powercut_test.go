package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/powercut"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// Power cut of every node of a replicated cluster at once: the three
// nodes' --dir (their filters, their applied positions and, under
// .nats, their JetStream store) each on a powercut mount; a pipelining
// go-redis ClusterClient adds BF.ADD and BF.MADD, the power of every
// mount is cut at a seeded point and every node killed, and the
// cluster is started again on what reached the disks.

// Bounds of a cluster power-cut run.
const (
	pcutWriters  = 4
	pcutHosts    = 64
	pcutDeadline = 3 * time.Minute // of the load before the cut, and of the load after the restart
	pcutAfter    = 2000            // adds acknowledged after the restart
	pcutMinAcks  = 2000            // the cut comes after 1 to 3 times as many acknowledged adds (seeded)
	pcutSyncGap  = 300 * time.Millisecond
	// syncTimeoutMs is a sync point's WAITAOF timeout: one that times out
	// is followed by the next, and the cut waits for one to succeed
	// (until replication.NodeAppliedWait, the load's first WAITAOF
	// answered [1 0] at its 60 s timeout in 5 of 14 runs: one position
	// read nats-server left unanswered held it).
	syncTimeoutMs = 10_000
)

// TestClusterPowerCutAlways: with --appendfsync always every add
// acknowledged before the power cut of every node answers present after
// the restart, through the cluster and in every node's files, and so
// does every add acknowledged after it.
func TestClusterPowerCutAlways(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		seed := uint64(run + 1)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { clusterPowerCut(t, "always", seed, nil) })
	}
}

// TestClusterPowerCutOneNode: with the default --appendfsync everysec,
// the power cut of one node (node1) loses nothing acknowledged: the
// other nodes hold every add and take node1's range while it is down
// (every range takes writes again before node1 restarts: the outage),
// node1 replays the log after its restart, and every add
// acknowledged before the cut answers present through the cluster and
// in every node's files, node1's included; so does every add
// acknowledged after it.
func TestClusterPowerCutOneNode(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		seed := uint64(run + 1)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { clusterPowerCut(t, "everysec", seed, []int{0}) })
	}
}

// TestClusterPowerCutEverysec: with --appendfsync everysec an add is
// durable against the power cut of every node once a WAITAOF 1 2 that
// began after its acknowledgement answered [1, 2] (sync points made on
// every node for every stream of its slots, between the adds): each
// such add answers present after the restart, through the cluster and
// in every node's files. The others may be lost; their count and how
// long before the cut the lost ones were sent are printed (a nemesis:
// line), not asserted. The cluster comes back by itself: every range
// takes writes again within pcutDeadline, although the JetStream
// replicas of a stream may have diverged (a node whose position the
// log no longer holds rewinds it: replication.ErrDiverged) or stay
// short of their leader (a consumer reading one delivers nothing: the
// node applies from the leader, replication.StallAfter, after checking
// that the leader holds the message at its position), and every add
// acknowledged after the restart answers present and is in every
// node's files (a follower never goes on in another history than the
// one the stream's leader holds: before the position check node1's
// files once lacked 18 of them, and after it 39, 8 and 13 in three
// runs, until followers read their stream's leader and check what
// another replica delivered, docs/cluster.md).
func TestClusterPowerCutEverysec(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		seed := uint64(run + 1)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { clusterPowerCut(t, "everysec", seed, nil) })
	}
}

// clusterPowerCut is one run in the appendfsync mode, cutting the
// power of the nodes of index cut (nil: every node at once).
func clusterPowerCut(t *testing.T, mode string, seed uint64, cut []int) {
	if cut == nil {
		cut = []int{0, 1, 2}
	}
	rng := rand.New(rand.NewPCG(seed, 33))
	cutAt := int64(pcutMinAcks + rng.IntN(2*pcutMinAcks))
	start := time.Now()
	r := newReplicated(t, "--appendfsync", mode)
	mounts := onPowercutMounts(t, r)
	t.Logf("on powercut mounts and serving in %v", time.Since(start).Round(time.Second))
	var logs sync.Once // the nodes' state on failure, before those running then are killed
	t.Cleanup(func() { logs.Do(func() { logOnFailure(t, r) }) })
	cc := r.client(t, time.Second)
	probed := r.client(t, time.Second) // the outage's client: the load's
	every := len(cut) == len(mounts)

	load, loadStart := &pcutLoad{seed: seed}, time.Now()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); load.run(cc, "b", stop) }()
	var syncs *pcutSyncs // only everysec's cut of every node may lose adds the log acknowledged
	if mode == "everysec" && every {
		syncs = syncPoints(t, r, cc, load, stop)
	}
	for end := time.Now().Add(pcutDeadline); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if load.count() >= cutAt && (syncs == nil || syncs.covered() > 0) {
			break
		}
	}
	if syncs != nil && syncs.covered() == 0 {
		logPositions(t, r) // why no sync point succeeded: each node's streams before the cut
	}
	cutTime := time.Now()
	t.Logf("cut after %v of load", cutTime.Sub(loadStart).Round(time.Second))
	cutNodes(t, r, mounts, cut)
	probe, probeDefault := probeRanges(t.Context(), probed, cutTime), defaultReload(t, r, cutTime)
	close(stop) // the load ends with its pipelines in flight, which may outlast the restart
	covered := 0
	if syncs != nil {
		covered = syncs.wait() // before the restart: one made on the restarted nodes would claim adds the cut lost
	}
	var outage time.Duration
	if !every {
		outage = probe.wait(t, "through the nodes not cut, before the cut ones restart")
		probeDefault(t)
	}
	for _, i := range cut {
		require.NoError(t, mounts[i].Unmount())
		r.dirs[i] = mounts[i].Disk
		r.nodes[i] = r.start(t, i)
	}
	t.Logf("nodes %v restarted %v after the cut", cut, time.Since(cutTime).Round(time.Second))
	t.Cleanup(func() { logs.Do(func() { logOnFailure(t, r) }) })
	<-done
	before := load.snapshot()
	if syncs == nil { // with always, or when a node is not cut (the uncut nodes hold every add)
		covered = len(before)
	}
	t.Logf("%s seed %d, nodes %v cut: %d adds of pipelines sent before the cut acknowledged (cut after %d), %d of them durable (all with always or when a node is not cut, else those a WAITAOF 1 2 covered)",
		mode, seed, cut, len(before), cutAt, covered)
	require.Positive(t, covered, "adds are covered before the cut")
	cc = r.client(t, time.Second)
	if every {
		outage = probe.wait(t, "through the nodes restarted at once")
		probeDefault(t)
	}
	logPositions(t, r)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lost, err := pcutLost(ctx, cc, before)
	require.NoError(t, err)
	logLost(t, mode, seed, cut, lost, len(before), cutTime, outage)
	for _, a := range lost {
		require.GreaterOrEqual(t, a.n, covered, "add %s %s (sent %v before the cut, within the covered %d) answers present",
			a.key, a.item, cutTime.Sub(a.sent), covered)
	}
	requireInFiles(t, r, byKey(before[:covered]), "acknowledged before the cut")

	after := &pcutLoad{seed: seed + 1000}
	stop = make(chan struct{})
	go func() {
		for end := time.Now().Add(pcutDeadline); after.count() < pcutAfter && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		close(stop)
	}()
	after.run(cc, "a", stop)
	adds := after.snapshot()
	require.Greater(t, len(adds), pcutAfter/2, "adds acknowledged after the restart")
	lost, err = pcutLost(ctx, cc, adds)
	require.NoError(t, err)
	require.Empty(t, lost, "every add of %d acknowledged after the restart answers present", len(adds))
	requireInFiles(t, r, byKey(adds), "acknowledged after the restart")
}

// onPowercutMounts puts each directory of the cluster r, not started,
// on a powercut mount and starts its nodes there.
func onPowercutMounts(t *testing.T, r *replicated) []*powercut.FS {
	t.Helper()
	var mounts []*powercut.FS
	for i := range r.dirs {
		p := powercut.Mount(t, r.dirs[i])
		mounts, r.dirs[i] = append(mounts, p), p.Dir
	}
	r.startAll(t)
	return mounts
}

// rangeProbe measures the outage a client sees after a fault: from the
// fault until a write of each node's range was acknowledged again, each
// range probed on its own through a cluster client made before the
// fault, whatever the test does meanwhile (restarting nodes, waiting
// for its own helpers).
type rangeProbe struct {
	done chan struct{}
	// took is, per key of probeKeys, the time from the fault to the
	// reply of its first acknowledged write; 0 if none came within
	// pcutDeadline.
	took []time.Duration
}

// probeKeys are a key of each node's range (slots 3300, 7365 and 15495).
var probeKeys = []string{"probe:{b}", "probe:{c}", "probe:{a}"}

// probeRanges starts writing a key of each range through cc, one BF.ADD
// every 100 ms per range, each with a 30 s deadline (and go-redis's
// retries and redirects), until one is acknowledged, pcutDeadline after
// the fault at from, or ctx ends (the test's).
func probeRanges(ctx context.Context, cc *redis.ClusterClient, from time.Time) *rangeProbe {
	p := &rangeProbe{done: make(chan struct{}), took: make([]time.Duration, len(probeKeys))}
	var wg sync.WaitGroup
	for i, key := range probeKeys {
		wg.Go(func() {
			for end := from.Add(pcutDeadline); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(100 * time.Millisecond) {
				try, cancel := context.WithTimeout(ctx, 30*time.Second)
				err := cc.BFAdd(try, key, "x").Err()
				cancel()
				if err == nil {
					p.took[i] = time.Since(from)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(p.done) }()
	return p
}

// defaultReload starts, with MMAPBLOOM_STRESS=1, probeRanges through a
// client with go-redis's default ClusterStateReloadInterval (60 s: after
// one node's cut it goes on sending that node's range to it until its
// next re-read, redis/go-redis#3979) and returns the wait that logs what
// it measured. Without it, the wait does nothing: the measurement is
// go-redis's, and it adds about 50 s to each one-node run.
func defaultReload(t *testing.T, r *replicated, cutTime time.Time) func(*testing.T) {
	if !testkit.Stress() {
		return func(*testing.T) {}
	}
	p := probeRanges(t.Context(), r.client(t, 0), cutTime)
	return func(t *testing.T) {
		t.Helper()
		p.wait(t, "the same with go-redis's default ClusterStateReloadInterval (60 s)")
	}
}

// wait waits for the probes and returns the outage, the longest time
// from the fault to a range's first acknowledged write; it fails the
// test if a range took none. what says which nodes were to serve.
func (p *rangeProbe) wait(t *testing.T, what string) time.Duration {
	t.Helper()
	<-p.done
	for i, d := range p.took {
		require.NotZero(t, d, "%s: %s takes a write within %v of the fault", what, probeKeys[i], pcutDeadline)
	}
	t.Logf("%s: writes acknowledged again %v after the fault (%v)", what, slices.Max(p.took).Round(time.Millisecond), p.took)
	return slices.Max(p.took)
}

// cutNodes cuts the power of the mounts of the nodes of index cut at
// once, then kills those nodes.
func cutNodes(t *testing.T, r *replicated, mounts []*powercut.FS, cut []int) {
	t.Helper()
	errs := make([]error, len(mounts))
	var wg sync.WaitGroup
	for _, i := range cut {
		wg.Go(func() { errs[i] = mounts[i].Cut() })
	}
	wg.Wait()
	for _, i := range cut {
		require.NoError(t, errs[i], "cut node%d's disk", i+1)
		require.NoError(t, r.nodes[i].cmd.Process.Kill())
		_ = r.nodes[i].cmd.Wait()
	}
}

// pcutAdd is an acknowledged add: its key and item, when its pipeline
// was sent (its reply came between then and the pipeline's end, which
// may wait for other nodes' parts), and how many adds were
// acknowledged before it.
type pcutAdd struct {
	key, item string
	sent      time.Time
	n         int
}

// pcutLoad is a pipelining load of BF.ADD and BF.MADD and the adds it
// got acknowledged, in reply order.
type pcutLoad struct {
	seed uint64
	mu   sync.Mutex
	adds []pcutAdd
	acks atomic.Int64
}

func (l *pcutLoad) count() int64 { return l.acks.Load() }

func (l *pcutLoad) snapshot() []pcutAdd {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.adds)
}

// run sends pipelines of 1 to 16 commands (a quarter BF.MADDs of 2 or 3
// items) from pcutWriters goroutines until stop is closed; items are
// named after prefix, the writer and a counter.
func (l *pcutLoad) run(cc *redis.ClusterClient, prefix string, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for w := range pcutWriters {
		rng := rand.New(rand.NewPCG(l.seed, uint64(w)))
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				sent := time.Now()
				cmds, _ := cc.Pipelined(ctx, func(p redis.Pipeliner) error {
					for j := range 1 + rng.IntN(16) {
						key, item := fmt.Sprintf("pc:{h%d}", rng.IntN(pcutHosts)), fmt.Sprintf("%s%d-%d-%d", prefix, w, i, j)
						if rng.IntN(4) == 0 {
							p.BFMAdd(ctx, key, item+"a", item+"b", item+"c")
						} else {
							p.BFAdd(ctx, key, item)
						}
					}
					return nil
				})
				cancel()
				l.record(cmds, sent)
			}
		})
	}
	wg.Wait()
}

// record appends the acknowledged adds of cmds.
func (l *pcutLoad) record(cmds []redis.Cmder, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cmds {
		if c.Err() != nil {
			continue
		}
		a := c.Args()
		for _, it := range a[2:] {
			l.adds = append(l.adds, pcutAdd{key: a[1].(string), item: it.(string), sent: sent, n: len(l.adds)})
			l.acks.Add(1)
		}
	}
}

// pcutSyncs makes sync points while a load runs: covered is how many of
// the load's first adds the last successful one covers.
type pcutSyncs struct {
	n    atomic.Int64
	done chan struct{}
}

func (s *pcutSyncs) covered() int { return int(s.n.Load()) }

// wait waits for the sync points to end and returns covered.
func (s *pcutSyncs) wait() int {
	<-s.done
	return s.covered()
}

// syncPoints makes a sync point every pcutSyncGap until stop is closed:
// a BF.ADD of a key in each log stream, each on one connection to the
// node that owns it now (cc's slot map: a lease that moved under load
// moves its markers too), then WAITAOF 1 2 syncTimeoutMs on each of those
// connections. When each answers [1, 2], every add acknowledged before
// the markers were sent is applied and synced on every node (its
// stream's records before the marker's are: the node answering the
// marker applied them and msynced, the other two recorded their
// position past it after their own sync).
func syncPoints(t *testing.T, r *replicated, cc *redis.ClusterClient, load *pcutLoad, stop <-chan struct{}) *pcutSyncs {
	s := &pcutSyncs{done: make(chan struct{})}
	clients := map[string]*redis.Client{}
	for _, n := range r.nodes {
		c := redis.NewClient(&redis.Options{Addr: n.addr, PoolSize: 1, MaxRetries: -1, DialTimeout: 5 * time.Second,
			ReadTimeout: 90 * time.Second, WriteTimeout: 30 * time.Second})
		t.Cleanup(func() { _ = c.Close() })
		clients[n.addr] = c
	}
	markers := streamMarkers(t, "0-16383")
	go func() {
		defer close(s.done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(pcutSyncGap):
			}
			before := load.count()
			byOwner, ok := map[string][]string{}, true
			for _, k := range markers {
				owner, err := cc.MasterForKey(context.Background(), k)
				ok = ok && err == nil && clients[owner.Options().Addr] != nil
				if ok {
					byOwner[owner.Options().Addr] = append(byOwner[owner.Options().Addr], k)
				}
			}
			for addr, keys := range byOwner {
				ok = ok && syncPoint(clients[addr], keys)
			}
			if ok {
				s.n.Store(before)
			}
		}
	}()
	return s
}

// syncPoint adds the markers and answers whether WAITAOF 1 2 then
// answered [1, 2].
func syncPoint(c *redis.Client, markers []string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var aof *redis.Cmd
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range markers {
			p.BFAdd(ctx, k, "mark")
		}
		aof = p.Do(ctx, "WAITAOF", 1, 2, syncTimeoutMs)
		return nil
	})
	got, _ := aof.Int64Slice()
	return err == nil && slices.Equal(got, []int64{1, 2})
}

// streamMarkers returns a key in each log stream (of the test cluster's
// 4, --replication-streams) that holds slots of the range slots.
func streamMarkers(t *testing.T, slots string) []string {
	rg, err := cluster.ParseRanges(slots)
	require.NoError(t, err)
	l := replication.Layout{Streams: 4}
	var out []string
	for st := range l.Streams {
		first, last := l.SlotsOf(st)
		if last < rg[0].Start || first > rg[0].End {
			continue
		}
		for k := 0; ; k++ {
			require.Less(t, k, 1_000_000, "a marker key of stream %d in %s", st, slots)
			key := fmt.Sprintf("mark:%d", k)
			if s := cluster.KeySlot([]byte(key)); s >= max(first, rg[0].Start) && s <= min(last, rg[0].End) {
				out = append(out, key)
				break
			}
		}
	}
	return out
}

// pcutLost returns the adds that answer 0 to BF.MEXISTS through cc.
func pcutLost(ctx context.Context, cc *redis.ClusterClient, adds []pcutAdd) ([]pcutAdd, error) {
	keys := map[string][]pcutAdd{}
	for _, a := range adds {
		keys[a.key] = append(keys[a.key], a)
	}
	var lost []pcutAdd
	for key, as := range keys {
		args := []any{"BF.MEXISTS", key}
		for _, a := range as {
			args = append(args, a.item)
		}
		got, err := cc.Do(ctx, args...).BoolSlice()
		if err != nil {
			return nil, err
		}
		for i, v := range got {
			if !v {
				lost = append(lost, as[i])
			}
		}
	}
	return lost, nil
}

// logLost prints the nemesis line of the run (fault powercut-MODE, or
// powercut1-MODE when not every node was cut): how many of n
// acknowledged adds were lost, how long before the cut the earliest
// and latest of them were sent, and the outage (rangeProbe): from the
// cut until every range took a write, through the nodes not cut when
// there are some (the cut ones restart after that), else through the
// nodes restarted at once.
func logLost(t *testing.T, mode string, seed uint64, cut []int, lost []pcutAdd, n int, at time.Time, outage time.Duration) {
	fault := "powercut-" + mode
	if len(cut) < 3 {
		fault = "powercut1-" + mode
	}
	window := ""
	if len(lost) > 0 {
		slices.SortFunc(lost, func(a, b pcutAdd) int { return a.sent.Compare(b.sent) })
		window = fmt.Sprintf(" lost_sent_before_cut=%v..%v", at.Sub(lost[0].sent).Round(time.Millisecond),
			at.Sub(lost[len(lost)-1].sent).Round(time.Millisecond))
	}
	line := fmt.Sprintf("nemesis: fault=%s run=%d acked=%d lost=%d outage=%v%s", fault, seed-1, n, len(lost),
		outage.Round(time.Millisecond), window)
	fmt.Println(line)
	t.Log(line)
}

// logPositions logs each node's position, recorded position and the
// log's last sequence per stream (INFO replication's mbf_log_NN).
func logPositions(t *testing.T, r *replicated) {
	for i, n := range r.nodes {
		rdb, ctx := goRedis(t, n.addr, "")
		var lines []string
		for _, l := range strings.Split(rdb.Info(ctx, "replication").Val(), "\r\n") {
			if strings.HasPrefix(l, "mbf_log_0") {
				lines = append(lines, l)
			}
		}
		t.Logf("node%d: %s", i+1, strings.Join(lines, " "))
	}
}

// logOnFailure logs the nodes' last log lines when t failed, their
// streams and the stream replicas and consumers each embedded
// nats-server holds (its /jsz: last sequence, leader, and each
// consumer's delivered and acknowledged sequences and its leader).
func logOnFailure(t *testing.T, r *replicated) {
	if !t.Failed() {
		return
	}
	followers := r.logged("replication: MBF_LOG_") // rewinds, stalls, stops: what the last lines may have pushed out
	for _, l := range followers[max(0, len(followers)-200):] {
		t.Log(l)
	}
	lines := r.logged("")
	for _, l := range lines[max(0, len(lines)-100):] {
		t.Log(l)
	}
	logPositions(t, r)
	hc := &http.Client{Timeout: 30 * time.Second}
	for i, addr := range r.monitor {
		resp, err := hc.Get("http://" + addr + "/jsz?streams=true&consumers=true")
		if err != nil {
			t.Logf("node%d /jsz: %v", i+1, err)
			continue
		}
		var jsz jszStreams
		err = json.NewDecoder(resp.Body).Decode(&jsz)
		_ = resp.Body.Close()
		t.Logf("node%d /jsz: %+v %v", i+1, jsz, err)
	}
}

// jszStreams is the part of nats-server's /jsz?streams=true&consumers=true
// that logOnFailure shows.
type jszStreams struct {
	Accounts []struct {
		Streams []struct {
			Name  string `json:"name"`
			State struct {
				First uint64 `json:"first_seq"`
				Last  uint64 `json:"last_seq"`
			} `json:"state"`
			Cluster struct {
				Leader string `json:"leader"`
			} `json:"cluster"`
			Consumers []struct {
				Name      string `json:"name"`
				Delivered struct {
					Stream uint64 `json:"stream_seq"`
				} `json:"delivered"`
				AckFloor struct {
					Stream uint64 `json:"stream_seq"`
				} `json:"ack_floor"`
				Pending uint64 `json:"num_pending"`
				Waiting int    `json:"num_waiting"`
				Cluster struct {
					Leader string `json:"leader"`
				} `json:"cluster"`
			} `json:"consumer_detail"`
		} `json:"stream_detail"`
	} `json:"account_details"`
}

// byKey groups adds by key.
func byKey(adds []pcutAdd) map[string][]string {
	out := map[string][]string{}
	for _, a := range adds {
		out[a.key] = append(out[a.key], a.item)
	}
	return out
}

// requireInFiles waits until every node's files hold every add of items
// (every node applies every range's log with three nodes).
func requireInFiles(t *testing.T, r *replicated, items map[string][]string, what string) {
	t.Helper()
	for i := range r.nodes {
		require.Eventually(t, func() bool { return missingIn(r.dirs[i], items) == 0 }, 2*time.Minute, 200*time.Millisecond,
			"node%d's files hold every add %s (%d missing)", i+1, what, missingIn(r.dirs[i], items))
	}
}
