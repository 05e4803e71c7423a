//go:build linux

package proc

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/edsrzf/mmap-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// TestHelperProcess is not a test: it is the entry point of the helper
// processes the multi-process tests start (testkit.StartHelper), and
// skips when run directly.
func TestHelperProcess(t *testing.T) { testkit.RunHelper(t) }

func init() {
	testkit.Role("writer", roleWriter)
	testkit.Role("reader", roleReader)
	testkit.Role("testandadd", roleTestAndAdd)
}

// progress is a small file of 64-bit counters that the parent and its
// helpers map shared: writer id stores in slot id how many of its keys'
// adds have returned, with atomic stores after each add; readers and the
// parent load them atomically.
type progress struct {
	path  string
	data  mmap.MMap
	slots []uint64
}

func createProgress(t *testing.T, path string, slots int) *progress {
	t.Helper()
	require.NoError(t, os.WriteFile(path, make([]byte, (slots+7)/8*64), 0o644))
	return openProgress(t, path)
}

func openProgress(t *testing.T, path string) *progress {
	t.Helper()
	file, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer file.Close()
	st, err := file.Stat()
	require.NoError(t, err)
	data, err := mapping.Map(file, uint64(st.Size()), false, false)
	require.NoError(t, err)
	slots, err := mapping.Words(data)
	require.NoError(t, err)
	t.Cleanup(func() { _ = data.Unmap() })
	return &progress{path: path, data: data, slots: slots}
}

func (p *progress) load(i uint32) uint64     { return atomic.LoadUint64(&p.slots[i]) }
func (p *progress) store(i uint32, v uint64) { atomic.StoreUint64(&p.slots[i], v) }

// batchSize is the number of keys a batch-mode writer adds per call.
const batchSize = 64

// writerResult is a writer's report: the number of keys it added.
type writerResult struct{ Adds uint64 }

// roleWriter adds keys [0, Keys) of its sequence to the filter with Add,
// AddString or AddBatch (mode add, string or batch), and stores its
// progress after every call that returned.
func roleWriter(t *testing.T, h *testkit.Helper) {
	a := h.Args
	f, err := mmapbloom.Open(a.Path, &mmapbloom.OpenOptions{ExactCount: a.Exact})
	require.NoError(t, err)
	defer f.Close()
	prog := openProgress(t, a.Progress)
	var res writerResult
	var buf [13]byte
	switch a.Mode {
	case "add", "string":
		for s := range a.Keys {
			key := testkit.WriterKey(buf[:], a.ID, s)
			if a.Mode == "add" {
				err = f.Add(key)
			} else {
				err = f.AddString(string(key))
			}
			require.NoError(t, err)
			prog.store(a.ID, s+1)
		}
	case "batch":
		for s := uint64(0); s < a.Keys; s += batchSize {
			end := min(s+batchSize, a.Keys)
			require.NoError(t, f.AddBatch(testkit.WriterKeys(a.ID, s, end)))
			prog.store(a.ID, end)
		}
	default:
		t.Fatalf("unknown writer mode %q", a.Mode)
	}
	res.Adds = a.Keys
	h.Send(t, res)
}

// readerResult is a reader's report.
type readerResult struct {
	Checks, Absent uint64
	FirstAbsent    string
}

// roleReader tests keys until told to stop: for a random writer it loads
// the writer's progress, then tests the newest key the writer reported
// added and a random older one. Each must test present.
func roleReader(t *testing.T, h *testkit.Helper) {
	a := h.Args
	f, err := mmapbloom.Open(a.Path, &mmapbloom.OpenOptions{ReadOnly: a.ReadOnly})
	require.NoError(t, err)
	defer f.Close()
	prog := openProgress(t, a.Progress)
	stop := h.StopFlag()
	rng := rand.New(rand.NewPCG(a.Seed, uint64(a.ID)))
	var res readerResult
	var buf [13]byte
	var lastCount uint64
	for !stop.Load() {
		w := uint32(rng.IntN(a.Writers))
		mark := prog.load(w)
		if mark == 0 {
			runtime.Gosched()
			continue
		}
		for _, s := range [2]uint64{mark - 1, rng.Uint64N(mark)} {
			ok, err := f.Test(testkit.WriterKey(buf[:], w, s))
			require.NoError(t, err)
			res.Checks++
			if !ok {
				res.Absent++
				if res.FirstAbsent == "" {
					res.FirstAbsent = fmt.Sprintf("writer %d key %d (progress %d)", w, s, mark)
				}
			}
		}
		c, err := f.Count()
		require.NoError(t, err)
		require.GreaterOrEqual(t, c, lastCount, "count went down")
		lastCount = c
	}
	h.Send(t, res)
}

// TestManyProcesses runs 8 writer processes, each adding 200,000 keys of
// its own and 20,000 keys shared by all (one in 11 of its keys), through
// Add, AddString or batches, while 2 reader processes (one read-only)
// test keys the writers reported added. Afterwards every key tests
// present, the count is the number of adds made, and no reader saw a key
// absent after its writer reported it added. The default run uses the
// full size for the first layout and a tenth of it for the others.
func TestManyProcesses(t *testing.T) {
	const writers, readers = 8, 2
	modes := []string{"add", "string", "batch"}
	for li, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			perWriter := uint64(220_000) // 200,000 own keys and 20,000 shared
			if li > 0 && !testkit.Stress() {
				perWriter /= 10
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "many.bloom")
			distinct := writers*(perWriter-perWriter/testkit.SharedEvery) + perWriter/testkit.SharedEvery
			f, err := mmapbloom.Create(path, distinct, 0.01, opts)
			require.NoError(t, err)
			hdr := f.Header()
			require.NoError(t, f.Close())
			prog := createProgress(t, filepath.Join(dir, "progress"), writers)
			seed := rand.Uint64()
			t.Logf("%d writers x %d keys (%d distinct), %d readers, seed %d", writers, perWriter, distinct, readers, seed)

			var rs []*testkit.Proc
			for i := range readers {
				rs = append(rs, testkit.StartHelper(t, "reader", testkit.HelperArgs{
					Path: path, Progress: prog.path, ID: uint32(i), Writers: writers, ReadOnly: i == 0, Seed: seed,
				}))
			}
			var ws []*testkit.Proc
			for w := range writers {
				ws = append(ws, testkit.StartHelper(t, "writer", testkit.HelperArgs{
					Path: path, Progress: prog.path, ID: uint32(w), Keys: perWriter, Mode: modes[w%len(modes)],
				}))
			}
			results := make([]writerResult, writers)
			testkit.RecvEach(t, ws, func(i int) any { return &results[i] })
			var adds uint64
			for i, w := range ws {
				w.Finish(t)
				adds += results[i].Adds
			}
			require.Equal(t, writers*perWriter, adds)
			for w := range uint32(writers) {
				require.Equal(t, perWriter, prog.load(w), "progress of writer %d", w)
			}
			for _, r := range rs {
				r.Stop()
				var res readerResult
				r.Recv(t, &res)
				r.Finish(t)
				t.Logf("%s: %d checks, %d absent", r.Name, res.Checks, res.Absent)
				assert.Positive(t, res.Checks, "reader checked nothing")
				assert.Zero(t, res.Absent, "reader saw a reported key absent: first %s", res.FirstAbsent)
			}

			f, err = mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			defer f.Close()
			count, err := f.Count()
			require.NoError(t, err)
			all := testkit.WriterKeys(0, 0, perWriter) // the shared keys once, then each writer's own
			for w := uint32(1); w < writers; w++ {
				all = append(all, slices.DeleteFunc(testkit.WriterKeys(w, 0, perWriter), func(k []byte) bool { return k[0] == 's' })...)
			}
			testkit.RequireConcurrentCount(t, f, filtertest.CountsCalls(f), all, adds, count, "after the writers")
			for w := range uint32(writers) {
				testkit.RequireAllPresent(t, f, w, 0, perWriter)
			}
			filecheck.Check(t, path, hdr)
		})
	}
}

// testAndAddResult is a TestAndAdd racer's report: answers[i] is true when
// TestAndAdd(key i) said present.
type testAndAddResult struct{ Answers []bool }

// raceSegment is the number of keys the TestAndAdd racers call between
// two meetings, so that they stay at the same keys.
const raceSegment = 16

// roleTestAndAdd opens the filter, reports ready, waits for "go", then
// calls TestAndAdd on keys [0, Keys) of writer 0's sequence and reports
// the answers. Right after each call the key must test present. Every
// raceSegment keys the racers meet (each stores its segment in its
// progress slot and waits for the others'), so that they call TestAndAdd
// on the same keys at about the same time.
func roleTestAndAdd(t *testing.T, h *testkit.Helper) {
	a := h.Args
	f, err := mmapbloom.Open(a.Path, nil)
	require.NoError(t, err)
	defer f.Close()
	prog := openProgress(t, a.Progress)
	h.Send(t, "ready")
	cmd, ok := h.Command()
	require.True(t, ok)
	require.Equal(t, "go", cmd)
	res := testAndAddResult{Answers: make([]bool, a.Keys)}
	var buf [13]byte
	for i := range a.Keys {
		if i%raceSegment == 0 {
			seg := i/raceSegment + 1
			prog.store(a.ID, seg)
			for r := range uint32(a.Writers) {
				for prog.load(r) < seg {
					runtime.Gosched()
					_, _, _ = syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
				}
			}
		}
		key := testkit.WriterKey(buf[:], 0, i)
		res.Answers[i], err = f.TestAndAdd(key)
		require.NoError(t, err)
		ok, err := f.Test(key)
		require.NoError(t, err)
		require.True(t, ok, "key %d absent right after TestAndAdd", i)
	}
	h.Send(t, res)
}

// TestTestAndAddRace starts 4 processes that call TestAndAdd on the same
// new keys in the same order at the same time. For each key: at least one
// process is told "new" whenever the key has a bit no other key sets (a
// key whose bits are all set by others may be told "present" by every
// caller, which is a false positive, not a race); the number told "new"
// is at most the key's distinct bits, since each such caller set one of
// them first; the others may be told "present". The count is the number
// of "new" answers.
func TestTestAndAddRace(t *testing.T) {
	const racers = 4
	keys := uint64(20_000)
	if testkit.Stress() {
		keys = 200_000
	}
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			f := filtertest.Create(t, keys, 0.01, opts)
			path := f.Path()

			// Count, for every bit, the keys that set it.
			setters := map[uint64]int{}
			locs := make([][]uint64, keys)
			var buf [13]byte
			for i := range keys {
				locs[i] = testkit.Distinct(f.Locations(testkit.WriterKey(buf[:], 0, i)))
				for _, p := range locs[i] {
					setters[p]++
				}
			}

			prog := createProgress(t, filepath.Join(t.TempDir(), "progress"), racers)
			var ps []*testkit.Proc
			for r := range racers {
				ps = append(ps, testkit.StartHelper(t, "testandadd", testkit.HelperArgs{
					Path: path, Progress: prog.path, ID: uint32(r), Keys: keys, Writers: racers,
				}))
			}
			ready := make([]string, racers)
			testkit.RecvEach(t, ps, func(i int) any { return &ready[i] })
			for _, p := range ps {
				p.Send(t, "go")
			}
			results := make([]testAndAddResult, racers)
			testkit.RecvEach(t, ps, func(i int) any { return &results[i] })
			answers := make([][]bool, racers)
			for r, p := range ps {
				p.Finish(t)
				require.Equal(t, "ready", ready[r])
				require.Len(t, results[r].Answers, int(keys))
				answers[r] = results[r].Answers
			}

			var news, private, raced, none uint64
			for i := range keys {
				n := 0
				for r := range racers {
					if !answers[r][i] {
						n++
					}
				}
				news += uint64(n)
				own := false
				for _, p := range locs[i] {
					own = own || setters[p] == 1
				}
				if own {
					private++
					require.GreaterOrEqual(t, n, 1, "key %d has a bit of its own, but no racer was told new", i)
				}
				require.LessOrEqual(t, n, len(locs[i]), "key %d: more racers told new than it has bits", i)
				switch n {
				case 0:
					none++
				case 1:
				default:
					raced++
				}
			}
			count, err := f.Count()
			require.NoError(t, err)
			require.Equal(t, news, count, "count is not the number of new answers")
			t.Logf("%d keys (%d with a bit of their own), %d racers: %d new answers; %d keys told new by several, %d by none",
				keys, private, racers, news, raced, none)
			for i := range keys {
				ok, err := f.Test(testkit.WriterKey(buf[:], 0, i))
				require.NoError(t, err)
				require.True(t, ok)
			}
		})
	}
}
