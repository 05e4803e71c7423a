package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The nemesis suite's shared parts (docs/cluster.md, "Nemesis suite"):
// a load of pipelined adds that records every reply (nemesisLoad), and
// the checker every fault run ends with (nemesisCheck).

// A nemesis load adds at most nemesisRate items a second, in pipelines
// of nemesisBatch BF.ADDs from nemesisWriters goroutines, and stops by
// itself after nemesisMaxAdds adds or nemesisMaxTime.
const (
	nemesisRate    = 2_000
	nemesisBatch   = 16
	nemesisWriters = 8
	nemesisMaxAdds = 400_000
	nemesisMaxTime = 4 * time.Minute
)

// nemesisKey is the key of a load's i-th add: 32 hash tags spread over
// the three ranges, and a new generation of keys every 8,192 adds (4 s
// at the full rate), so that every node keeps creating filters.
func nemesisKey(i int) string { return fmt.Sprintf("nem:{%d}:%d", i%32, i/8192) }

// nemesisLoad is a running load; every reply is in j.
type nemesisLoad struct {
	j    addJournal
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startNemesisLoad starts a load through cc; it is stopped when the
// test ends, if not before.
func startNemesisLoad(t *testing.T, cc *redis.ClusterClient) *nemesisLoad {
	l := &nemesisLoad{stop: make(chan struct{}), done: make(chan struct{})}
	go func() { defer close(l.done); l.run(cc) }()
	t.Cleanup(l.end)
	return l
}

// run adds until stopped or past its bounds.
func (l *nemesisLoad) run(cc *redis.ClusterClient) {
	tick := time.NewTicker(time.Second * nemesisBatch / nemesisRate)
	defer tick.Stop()
	end := time.Now().Add(nemesisMaxTime)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range nemesisWriters {
		wg.Go(func() {
			for {
				i := int(next.Add(nemesisBatch)) - nemesisBatch
				if i >= nemesisMaxAdds || time.Now().After(end) {
					return
				}
				select {
				case <-l.stop:
					return
				case <-tick.C:
				}
				sent := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				cmds, _ := cc.Pipelined(ctx, func(p redis.Pipeliner) error {
					for k := i; k < i+nemesisBatch; k++ {
						p.BFAdd(ctx, nemesisKey(k), fmt.Sprintf("item-%d", k))
					}
					return nil
				})
				cancel()
				l.j.record(cmds, sent, time.Now())
			}
		})
	}
	wg.Wait()
}

// end stops the load and waits for its writers.
func (l *nemesisLoad) end() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// awaitAcks waits (up to 3 minutes) until n more adds than now are
// acknowledged.
func (l *nemesisLoad) awaitAcks(t *testing.T, n int64, msg string) {
	t.Helper()
	want := l.j.acks.Load() + n
	require.Eventually(t, func() bool { return l.j.acks.Load() >= want }, 3*time.Minute, 10*time.Millisecond, msg)
}

// nemesisCheck ends a fault run: once the fault is over, every add of
// recs that was acknowledged must answer present (BF.MEXISTS) on every
// node of alive that serves its key (its owner, and a replica of the
// owner on a READONLY connection; a node answering MOVED does not serve
// it) and through a cluster client, and be in the files of each node of
// alive (with three nodes, each applies every range's log). It waits up
// to 2 minutes for that (a node restarted or freed catches up), then
// logs one line: the fault, the run, the adds acknowledged, the most
// missing on one node or client (lost), and the outage (the longest
// gap between the replies of two acknowledged adds), and fails the
// test unless lost is 0.
func nemesisCheck(t *testing.T, fault string, run int, r *replicated, alive []int, recs []addRecord) {
	t.Helper()
	all := acked(recs, func(int) bool { return true })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cc := r.client(t, time.Second)
	lost, err := 0, error(nil)
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		lost, err = nemesisMissing(t, ctx, r, cc, alive, all)
		if (err == nil && lost == 0) || time.Now().After(end) {
			break
		}
	}
	t.Logf("nemesis: fault=%s run=%d acked=%d lost=%d outage=%v", fault, run, countAcked(all), lost, longestGap(recs).Round(time.Millisecond))
	require.NoError(t, err, "the nodes answer BF.MEXISTS after the fault")
	assert.Zero(t, lost, "every acknowledged add answers present on every node that serves it, and is in every node's files")
}

// nemesisMissing returns the most acknowledged adds missing on one
// node of alive (its replies or its files) or through cc, and the
// first error of a reply.
func nemesisMissing(t *testing.T, ctx context.Context, r *replicated, cc *redis.ClusterClient, alive []int, all map[string][]string) (int, error) {
	most, err := absent(ctx, cc.Do, all)
	if err != nil {
		return 0, err
	}
	for _, i := range alive {
		ro := redis.NewClient(&redis.Options{Addr: r.nodes[i].addr, ReadTimeout: 30 * time.Second, MaxRetries: -1,
			OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
		n, err := absent(ctx, servedOnly(ro), all)
		_ = ro.Close()
		if err != nil {
			return 0, fmt.Errorf("node%d: %w", i+1, err)
		}
		most = max(most, n, missingIn(r.dirs[i], all))
	}
	return most, nil
}

// servedOnly is rdb's Do with a MOVED reply taken as no answer (an
// empty array: none of the items counts as absent there).
func servedOnly(rdb *redis.Client) func(ctx context.Context, args ...any) *redis.Cmd {
	return func(ctx context.Context, args ...any) *redis.Cmd {
		c := rdb.Do(ctx, args...)
		if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "MOVED ") {
			return redis.NewCmdResult([]any{}, nil)
		}
		return c
	}
}

// countAcked is how many items all holds.
func countAcked(all map[string][]string) int {
	n := 0
	for _, items := range all {
		n += len(items)
	}
	return n
}

// longestGap is the longest time between the replies of two
// acknowledged adds of recs, one after the other.
func longestGap(recs []addRecord) time.Duration {
	var at []time.Time
	for _, a := range recs {
		if a.ok {
			at = append(at, a.at)
		}
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	gap := time.Duration(0)
	for i := 1; i < len(at); i++ {
		gap = max(gap, at[i].Sub(at[i-1]))
	}
	return gap
}
