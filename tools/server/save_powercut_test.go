package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/powercut"
)

// Power-cut tests of appendfsync: a client pipelines BF.ADD and BF.MADD
// into scaling sets (small first layers, so that layers are created
// during the run) while the power is cut at a seeded point; the server is
// shut down on the dead disk, the mount removed, and a new server opens
// what the disk kept.

// cutRun is one power-cut run: the adds the server acknowledged, in
// order, how many of the first ones must survive, and the address of the
// server started on the disk after the cut.
type cutRun struct {
	acked   []cutAdd
	durable int
	addr    string
}

// cutAdd is an acknowledged add.
type cutAdd struct{ key, item string }

// cutKeys are the keys the runs add to.
var cutKeys = []string{"k0", "k1", "k2", "k3"}

// TestAppendfsyncAlwaysPowerCut: with always, no acknowledged add is
// lost to a power cut, and every file opens after it.
func TestAppendfsyncAlwaysPowerCut(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) {
		seed := uint64(run + 1)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			checkAfterCut(t, powerCut(t, Config{AppendFsync: AppendFsyncAlways}, seed))
		})
	}
}

// TestAppendfsyncEverysecPowerCut: with everysec, no add acknowledged
// before a Sync that began after it and completed before the cut is
// lost, and every file opens. The bound is the server's own count of
// Syncs (rdb_saves), not the wall clock: an add acknowledged before
// rdb_saves read v is covered once rdb_saves reads v+2 (the Sync counted
// v+1 may have begun before the add), which everysec makes within about
// two seconds.
func TestAppendfsyncEverysecPowerCut(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) {
		seed := uint64(run + 1)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := powerCut(t, Config{AppendFsync: AppendFsyncEverysec}, seed)
			require.Positive(t, r.durable, "a Sync covered some adds before the cut")
			checkAfterCut(t, r)
		})
	}
}

// TestAppendfsyncNoPowerCut: with no, the kernel decides what reaches
// the disk (nothing, on this filesystem, which writes back only at an
// fsync), but every key created before the cut exists and opens after
// it: creating a key is durable when answered in every mode.
func TestAppendfsyncNoPowerCut(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) {
		seed := uint64(run + 1)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := powerCut(t, Config{AppendFsync: AppendFsyncNo}, seed)
			checkAfterCut(t, r)
			rdb, c := dial(t, r.addr, ""), ctx(t)
			created := map[string]bool{}
			for _, a := range r.acked {
				created[a.key] = true
			}
			for key := range created {
				assert.EqualValues(t, 1, rdb.Exists(c, key).Val(), "%s was created before the cut", key)
			}
		})
	}
}

// Bounds of a power-cut run.
const (
	cutMaxPipelines = 20000                 // pipelines sent in all
	cutDeadline     = 2 * time.Minute       // before the cut is forced
	cutAfterCut     = 20                    // pipelines sent once the cut is made
	cutWaitSync     = 10 * time.Millisecond // between pipelines while everysec's Sync is awaited
)

// powerCut runs a server of cfg on a powercut mount, pipelines adds
// until a seeded count of them is acknowledged (and with everysec until
// a Sync covered some), cuts the power while the client goes on, and
// stops the server and the mount.
func powerCut(t *testing.T, cfg Config, seed uint64) cutRun {
	rng := rand.New(rand.NewPCG(seed, 38))
	cutAt := 200 + rng.IntN(2000)
	p := powercut.Mount(t, t.TempDir())
	cfg.Dir, cfg.DefaultCapacity, cfg.DefaultExpansion = p.Dir, 300, 2
	policy := cfg.AppendFsync
	s, addr := startServer(t, cfg)
	rdb, c := dial(t, addr, ""), ctx(t)
	var r cutRun
	savesAt := []int64{} // savesAt[i]: rdb_saves read after the pipeline that acknowledged acked[:ackedAt[i]]
	ackedAt := []int{}
	cut := make(chan error, 1)
	cutting, sent := false, 0
	deadline := time.Now().Add(cutDeadline)
	for i := 0; i < cutMaxPipelines && sent < cutAfterCut; i++ {
		r.acked = append(r.acked, pipelineAdds(t, rdb, rng, i)...)
		if v, err := infoSaves(c, rdb); err == nil {
			savesAt, ackedAt = append(savesAt, v), append(ackedAt, len(r.acked))
			r.durable = coveredAdds(savesAt, ackedAt, r.durable)
		}
		switch {
		case cutting:
			sent++
		case len(r.acked) >= cutAt && policy == AppendFsyncEverysec && r.durable == 0 && time.Now().Before(deadline):
			// everysec covers adds only at its next ticks (about 2 s):
			// pace the pipelines so that cutMaxPipelines is not spent first
			time.Sleep(cutWaitSync)
		case len(r.acked) >= cutAt || time.Now().After(deadline):
			cutting = true
			delay := time.Duration(rng.IntN(3)) * time.Millisecond // drawn here: rng is the test goroutine's
			go func() {
				time.Sleep(delay)
				cut <- p.Cut()
			}()
		}
	}
	require.True(t, cutting, "the run reached its cut")
	require.NoError(t, <-cut)
	if policy == AppendFsyncAlways {
		r.durable = len(r.acked)
	}
	t.Logf("seed %d: %d adds acknowledged, %d must survive", seed, len(r.acked), r.durable)
	require.NoError(t, rdb.Close())
	_ = s.Shutdown() // the disk is dead: the last Syncs fail
	require.NoError(t, p.Unmount())
	_, r.addr = startServer(t, Config{Dir: p.Disk, AppendFsync: AppendFsyncNo})
	return r
}

// pipelineAdds sends pipeline i: 1 to 16 BF.ADDs and BF.MADDs of distinct
// items over cutKeys, and returns the adds acknowledged.
func pipelineAdds(t *testing.T, rdb *redis.Client, rng *rand.Rand, i int) []cutAdd {
	c := ctx(t)
	pipe := rdb.Pipeline()
	type sentCmd struct {
		cmd  redis.Cmder
		adds []cutAdd
	}
	var cmds []sentCmd
	for j := range 1 + rng.IntN(16) {
		key := cutKeys[rng.IntN(len(cutKeys))]
		item := fmt.Sprintf("p%d-%d", i, j)
		if rng.IntN(4) == 0 {
			cmds = append(cmds, sentCmd{pipe.BFMAdd(c, key, item+"a", item+"b"), []cutAdd{{key, item + "a"}, {key, item + "b"}}})
		} else {
			cmds = append(cmds, sentCmd{pipe.BFAdd(c, key, item), []cutAdd{{key, item}}})
		}
	}
	_, _ = pipe.Exec(c)
	var acked []cutAdd
	for _, sc := range cmds {
		if sc.cmd.Err() == nil {
			acked = append(acked, sc.adds...)
		}
	}
	return acked
}

// infoSaves reads rdb_saves (no testing.T: an error after the cut is
// expected).
func infoSaves(c context.Context, rdb *redis.Client) (int64, error) {
	var v int64
	_, err := fmt.Sscan(rdb.InfoMap(c, "persistence").Item("Persistence", "rdb_saves"), &v)
	return v, err
}

// coveredAdds returns how many of the first adds a Sync is known to
// have covered: those acknowledged before a read of rdb_saves v, once a
// later read gives at least v+2; at least known.
func coveredAdds(savesAt []int64, ackedAt []int, known int) int {
	last := savesAt[len(savesAt)-1]
	for i := len(savesAt) - 1; i >= 0; i-- {
		if last >= savesAt[i]+2 {
			return max(known, ackedAt[i])
		}
	}
	return known
}

// checkAfterCut checks, on the new server, that the first r.durable
// acknowledged adds are present and every key's file opens.
func checkAfterCut(t *testing.T, r cutRun) {
	rdb, c := dial(t, r.addr, ""), ctx(t)
	byKey := map[string][]any{}
	for _, a := range r.acked[:r.durable] {
		byKey[a.key] = append(byKey[a.key], a.item)
	}
	lost := 0
	for key, items := range byKey {
		present, err := rdb.BFMExists(c, key, items...).Result()
		require.NoError(t, err, key)
		for i, ok := range present {
			if !ok {
				lost++
				if lost <= 5 {
					t.Errorf("%s %v: acknowledged and lost", key, items[i])
				}
			}
		}
	}
	assert.Zero(t, lost, "acknowledged adds lost")
	keys, err := rdb.Keys(c, "*").Result()
	require.NoError(t, err)
	for _, key := range keys {
		assert.NoError(t, rdb.BFInfo(c, key).Err(), "%s opens", key)
	}
}
