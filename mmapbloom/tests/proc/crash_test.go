//go:build linux

package proc

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

// TestCrashedWriters kills writer processes with SIGKILL at random
// moments, round after round on one file: 3 writers per round (Add,
// AddString, AddBatch), each killed once its progress passes a random
// mark (0 kills it while it starts), after a random pause. After every
// round the file opens and validates, every key whose add returned before
// the kill tests present, and the count grew by at most the adds that
// returned plus the ones in flight, and holds at least every returned
// add with a bit of its own (see testkit.OwnBit), minus the
// testhooks.CountBatch-1 a writer without OpenOptions.ExactCount may not
// have published (writers take turns with and without it). After the
// last round the filter keeps working. 8 rounds for the first layout
// and 3 for the others by default, 100 each with MMAPBLOOM_STRESS=1.
func TestCrashedWriters(t *testing.T) {
	const writers = 3
	modes := []string{"add", "string", "batch"}
	inFlight := map[string]uint64{"add": 1, "string": 1, "batch": batchSize}
	for li, opts := range filtertest.Layouts {
		rounds := 8
		switch {
		case testkit.Stress():
			rounds = 100
		case li > 0:
			rounds = 3
		}
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			seed := rand.Uint64()
			rng := rand.New(rand.NewPCG(seed, 0))
			t.Logf("%d rounds, seed %d", rounds, seed)
			dir := t.TempDir()
			path := filepath.Join(dir, "crash.bloom")
			f, err := mmapbloom.Create(path, 2_000_000, 0.01, opts)
			require.NoError(t, err)
			hdr := f.Header()
			require.NoError(t, f.Close())
			prog := createProgress(t, filepath.Join(dir, "progress"), rounds*writers)

			var count, total, unpublished uint64
			var returned, inflight [][]byte // keys whose adds returned, and those that may have run in part
			for r := range rounds {
				ps := make([]*testkit.Proc, writers)
				targets := make([]uint64, writers)
				for w := range writers {
					targets[w] = rng.Uint64N(20_000)
					if rng.IntN(8) == 0 {
						targets[w] = 0
					}
					ps[w] = testkit.StartHelper(t, "writer", testkit.HelperArgs{
						Path: path, Progress: prog.path, ID: uint32(r*writers + w), Keys: 1 << 40, Mode: modes[w], Exact: (r+w)%2 == 0,
					})
				}
				for w, p := range ps {
					id := uint32(r*writers + w)
					for prog.load(id) < targets[w] {
						require.True(t, p.Running(), "writer %s exited before its kill; output:\n%s", p.Name, p.Output())
						time.Sleep(100 * time.Microsecond)
					}
					time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
					p.Killed()
				}

				f, err := mmapbloom.Open(path, nil)
				require.NoError(t, err, "round %d: open after the kills", r)
				var done, maxLost uint64
				for w := range writers {
					id := uint32(r*writers + w)
					mark := prog.load(id)
					done += mark
					maxLost += inFlight[modes[w]]
					if (r+w)%2 != 0 {
						unpublished += testhooks.CountBatch - 1
					}
					testkit.RequireAllPresent(t, f, id, 0, mark)
					returned = append(returned, testkit.WriterKeys(id, 0, mark)...)
					inflight = append(inflight, testkit.WriterKeys(id, mark, mark+inFlight[modes[w]])...)
				}
				c, err := f.Count()
				require.NoError(t, err)
				require.GreaterOrEqual(t, c+unpublished, testkit.OwnBit(f, returned, inflight), "round %d: count below the returned adds that set a bit of their own", r)
				require.LessOrEqual(t, c, count+done+maxLost, "round %d: count above the adds made", r)
				count, total = c, total+done
				require.NoError(t, f.Close())
				filecheck.Check(t, path, hdr)
			}
			t.Logf("%d adds returned before the kills, count %d", total, count)

			// The filter keeps working: add, test, clear, sync.
			f, err = mmapbloom.Open(path, nil)
			require.NoError(t, err)
			filtertest.Watch(t, f)
			for w := range uint32(rounds * writers) {
				testkit.RequireAllPresent(t, f, w, 0, prog.load(w))
			}
			key := []byte(fmt.Sprintf("after %d rounds", rounds))
			require.NoError(t, f.Add(key))
			ok, err := f.Test(key)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, f.Clear())
			c, err := f.Count()
			require.NoError(t, err)
			require.Zero(t, c)
			ok, err = f.Test(key)
			require.NoError(t, err)
			require.False(t, ok)
			require.NoError(t, f.Add(key))
			require.NoError(t, f.Sync())
		})
	}
}
