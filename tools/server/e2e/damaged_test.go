package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// The damaged-store faults of the nemesis suite (issue 33): a node of a
// three-node `serve --replication jetstream` cluster is killed under a
// load, a file under its --dir is damaged while it is down, and it is
// restarted. The checker: every acknowledged add is in the files of
// every node once it recovered (every node applies every range with
// three) and answers present wherever a read is served; the restarted
// node never answers absent for an add its files held when it was
// killed (a damaged file is an error, MOVED or CLUSTERDOWN until
// rebuilt, never an empty filter); it does not crash.

// damage damages a file under the stopped node's directory dir; held
// is the adds its files held at the kill, by key. It returns what it
// did and the key whose file it damaged ("" for none).
type damage func(t *testing.T, dir string, run int, held map[string][]string) (what, key string)

// TestDamagedLogStore: one node's embedded JetStream store damaged while
// it is down: a .blk file of a stream's messages or of a Raft log
// truncated to half, or 256 bytes in its middle flipped
// (damageLogStore).
func TestDamagedLogStore(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		t.Run(fmt.Sprint(run), func(t *testing.T) { damagedRun(t, "damaged-log-store", run, false, damageLogStore) })
	}
}

// TestDamagedFilterFile: one node's filter file of a key (NONSCALING,
// one file) damaged while it is down: truncated to half, or its
// header's bytes 24-31 (m) flipped: the header's CRC-32C no longer
// matches.
func TestDamagedFilterFile(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		t.Run(fmt.Sprint(run), func(t *testing.T) { damagedRun(t, "damaged-filter-file", run, true, damageFilterFile) })
	}
}

// damagedRun is one run: node run%3 is killed once a fifth of the
// adds are acknowledged, damaged by fault, and restarted while the
// writers go on. fixed reserves every key as a NONSCALING filter (one
// file per key) first.
func damagedRun(t *testing.T, name string, run int, fixed bool, fault damage) {
	r := startReplicated(t) // serve's default --lease-ttl, 5 s
	cc := r.client(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if fixed {
		reserveFixed(t, ctx, cc)
	}
	j := &addJournal{}
	done := make(chan struct{})
	go func() { defer close(done); writeURLs(cc, 8, j) }()
	for end := time.Now().Add(3 * time.Minute); j.acks.Load() < failoverURLs/5 && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
	victim := run % len(r.nodes)
	require.NoError(t, r.nodes[victim].cmd.Process.Kill())
	_ = r.nodes[victim].cmd.Wait()
	held := heldIn(t, r.dirs[victim], acked(j.snapshot(), func(int) bool { return true }))
	what, key := fault(t, r.dirs[victim], run, held)
	t.Logf("node%d killed after %d acks; %s", victim+1, j.acks.Load(), what)
	var exited atomic.Bool
	r.nodes[victim] = startWatched(t, r, victim, &exited)

	p := &damageProbe{addr: r.nodes[victim].addr, held: sample(held, key, 16)}
	stop := make(chan struct{})
	probed := make(chan struct{})
	go func() { defer close(probed); p.run(ctx, stop) }()
	<-done
	all := acked(j.snapshot(), func(int) bool { return true })
	lost := lostAdds(ctx, r, all)
	for end := time.Now().Add(3 * time.Minute); lost > 0 && time.Now().Before(end) && !exited.Load(); {
		time.Sleep(time.Second)
		lost = lostAdds(ctx, r, all)
	}
	close(stop)
	<-probed
	n := 0
	for _, its := range all {
		n += len(its)
	}
	fmt.Printf("nemesis: fault=%s run=%d acked=%d lost=%d\n", name, run, n, lost)
	t.Logf("node%d after the restart: %d reads served, %d answered absent an add its files held, %d errors (%s); exited: %v",
		victim+1, p.served.Load(), p.wrong.Load(), p.errs.Load(), p.lastErr(), exited.Load())
	detected := false
	for _, l := range append(slices.Clone(r.nodes[victim].early), r.logged("")...) { // the start's lines, then the others'
		if strings.Contains(l, "damaged") || strings.Contains(l, "orrupt") || strings.Contains(l, "runcat") { // serve's and nats-server's words
			t.Log(l)
			detected = detected || key != "" && strings.Contains(l, "is damaged") && strings.Contains(l, keyFile(t, key))
		}
	}
	assert.True(t, key == "" || detected, "node%d logs the damaged file of %s at its start", victim+1, key)
	for _, l := range r.logged(fmt.Sprintf("node%d: ", victim+1)) {
		if strings.Contains(l, "panic") || strings.Contains(l, "SIGBUS") || strings.Contains(l, "fatal error") {
			t.Errorf("crash: %s", l)
		}
	}
	assert.False(t, exited.Load(), "node%d restarted on its damaged directory runs", victim+1)
	assert.Zero(t, p.wrong.Load(), "node%d never answers absent an add its files held (first: %s)", victim+1, p.firstWrong())
	assert.Zero(t, lost, "every acknowledged add is in every node's files and answers present where served")
}

// reserveFixed creates every key the writers add to as a NONSCALING
// filter: one file per key.
func reserveFixed(t *testing.T, ctx context.Context, cc *redis.ClusterClient) {
	t.Helper()
	for i := 0; i < failoverHosts; i++ {
		key, _ := failoverURL(i)
		require.Eventually(t, func() bool {
			err := cc.BFReserveNonScaling(ctx, key, 0.01, 10_000).Err()
			return err == nil || strings.Contains(err.Error(), "item exists")
		}, time.Minute, 100*time.Millisecond, "BF.RESERVE %s", key)
	}
}

// startWatched is replicated.start that sets exited when the process
// ends (its stderr closes).
func startWatched(t *testing.T, r *replicated, i int, exited *atomic.Bool) *served {
	n := startServe(t, r.dirs[i], nil, r.args[i]...)
	go func() {
		for line := range n.logs {
			r.mu.Lock()
			r.log = append(r.log, fmt.Sprintf("node%d: %s", i+1, line))
			r.mu.Unlock()
		}
		exited.Store(true)
	}()
	return n
}

// openFilter opens key's filter in dir read-only: its file, else its
// set.
func openFilter(dir, key string) (interface {
	TestString(string) (bool, error)
	Close() error
}, error) {
	stem, err := keyname.Stem([]byte(key))
	if err != nil {
		return nil, err
	}
	f, err := mmapbloom.Open(filepath.Join(dir, stem+keyname.FileSuffix), &mmapbloom.OpenOptions{ReadOnly: true})
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return mmapbloom.OpenSet(filepath.Join(dir, stem+keyname.SetSuffix), &mmapbloom.OpenOptions{ReadOnly: true})
}

// heldIn returns the adds of acked that the files in dir hold.
func heldIn(t *testing.T, dir string, acked map[string][]string) map[string][]string {
	t.Helper()
	held := map[string][]string{}
	for key, items := range acked {
		f, err := openFilter(dir, key)
		if err != nil {
			continue
		}
		for _, it := range items {
			if ok, err := f.TestString(it); err == nil && ok {
				held[key] = append(held[key], it)
			}
		}
		require.NoError(t, f.Close())
	}
	return held
}

// lostAdds is the most adds of acked one node lacks: in its files, or
// answered absent by a READONLY BF.MEXISTS the node serves (a key it
// answers MOVED or an error for is not served there).
func lostAdds(ctx context.Context, r *replicated, acked map[string][]string) int {
	worst := 0
	for i, dir := range r.dirs {
		n := missingIn(dir, acked)
		ro := readOnlyClient(r.nodes[i].addr)
		for key, items := range acked {
			got, err := ro.Do(ctx, append([]any{"BF.MEXISTS", key}, anys(items)...)...).BoolSlice()
			for _, ok := range got {
				if err == nil && !ok {
					n++
				}
			}
		}
		_ = ro.Close()
		worst = max(worst, n)
	}
	return worst
}

// readOnlyClient is a client of addr whose connections send READONLY
// (a node serves reads of its primary's slots), with no retries.
func readOnlyClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
}

func anys(items []string) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

// sample returns up to n keys of held with their adds, key first when
// held has it.
func sample(held map[string][]string, key string, n int) map[string][]string {
	out := map[string][]string{}
	if its, ok := held[key]; ok {
		out[key] = its
	}
	for k, its := range held {
		if len(out) >= n {
			break
		}
		out[k] = its
	}
	return out
}

// damageProbe reads the restarted node's held adds on a READONLY
// connection until stopped, counting the replies that served the read,
// those that answered absent an add the node's files held (wrong), and
// the errors (MOVED, CLUSTERDOWN, TRYAGAIN, a file's error).
type damageProbe struct {
	addr                string
	held                map[string][]string
	served, wrong, errs atomic.Int64
	mu                  sync.Mutex
	last, first         string
}

// run probes every 100 ms until stop closes or ctx ends.
func (p *damageProbe) run(ctx context.Context, stop <-chan struct{}) {
	ro := readOnlyClient(p.addr)
	defer ro.Close()
	for i := 0; i < 20_000; i++ {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		for key, items := range p.held {
			got, err := ro.Do(ctx, append([]any{"BF.MEXISTS", key}, anys(items)...)...).BoolSlice()
			p.note(key, items, got, err)
		}
	}
}

// note counts one reply.
func (p *damageProbe) note(key string, items []string, got []bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.errs.Add(1)
		p.last = err.Error()
		return
	}
	p.served.Add(1)
	for i, ok := range got {
		if !ok {
			if p.wrong.Add(1) == 1 {
				p.first = fmt.Sprintf("%s %s answered 0", key, items[i])
			}
		}
	}
}

func (p *damageProbe) lastErr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

func (p *damageProbe) firstWrong() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// damageLogStore damages the largest .blk file of one kind in the
// node's embedded JetStream store: a stream's messages
// (jetstream/ACCOUNT/streams/NAME/msgs) or a Raft group's log
// (jetstream/$SYS/_js_/GROUP/msgs), truncated to half or 256 bytes in
// its middle flipped; runs 0 and 1 truncate the messages and flip the
// Raft log, runs 2 and 3 the other way round.
func damageLogStore(t *testing.T, dir string, run int, _ map[string][]string) (string, string) {
	t.Helper()
	kind := []string{"/streams/", "/_js_/"}[(run+run/2)%2]
	var path string
	var size int64
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, ".nats"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".blk") || !strings.Contains(filepath.ToSlash(p), kind) {
			return err
		}
		if fi, err := d.Info(); err == nil && fi.Size() > size {
			path, size = p, fi.Size()
		}
		return nil
	}))
	require.NotEmpty(t, path, "a .blk file under %s/.nats holding %s", dir, kind)
	rel, _ := filepath.Rel(dir, path)
	if run%2 == 0 {
		require.NoError(t, os.Truncate(path, size/2))
		return fmt.Sprintf("%s (%d bytes) truncated to %d", rel, size, size/2), ""
	}
	flip(t, path, size/2, 256)
	return fmt.Sprintf("%s (%d bytes): 256 bytes flipped at %d", rel, size, size/2), ""
}

// damageFilterFile damages the filter file of the key held with the
// most adds: truncated to half (even runs), or its header's bytes 24-31
// (m, covered by the header's CRC-32C) flipped (odd runs).
func damageFilterFile(t *testing.T, dir string, run int, held map[string][]string) (string, string) {
	t.Helper()
	key := ""
	for k, its := range held {
		if len(its) > len(held[key]) {
			key = k
		}
	}
	require.NotEmpty(t, key, "the node held adds")
	path := filepath.Join(dir, keyFile(t, key))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	if run%2 == 0 {
		require.NoError(t, os.Truncate(path, fi.Size()/2))
		return fmt.Sprintf("%s (key %s, %d adds held, %d bytes) truncated to %d", filepath.Base(path), key, len(held[key]), fi.Size(), fi.Size()/2), key
	}
	flip(t, path, 24, 8)
	return fmt.Sprintf("%s (key %s, %d adds held): header bytes 24-31 flipped", filepath.Base(path), key, len(held[key])), key
}

// keyFile is the name of key's filter file.
func keyFile(t *testing.T, key string) string {
	t.Helper()
	stem, err := keyname.Stem([]byte(key))
	require.NoError(t, err)
	return stem + keyname.FileSuffix
}

// flip inverts n bytes of the file at path from off.
func flip(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, n)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	for i := range b {
		b[i] ^= 0xff
	}
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
}
