//go:build linux

package mmapbloom

// The multi-process harness: a test starts helper processes by running
// this test binary again with -test.run=^TestHelperProcess$ and the role
// to play in the environment. A helper gets its parameters as JSON in the
// environment, sends JSON values to the parent on file descriptor 3, and
// reads the parent's commands on stdin; the parent closing stdin means
// "stop". A helper runs inside TestHelperProcess with a real *testing.T,
// so it checks with require like any test, and a failed check (or a race
// report) makes the helper exit non-zero, which the parent reports with
// the helper's output.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/edsrzf/mmap-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

const (
	envHelperRole = "MMAPBLOOM_HELPER_ROLE"
	envHelperArgs = "MMAPBLOOM_HELPER_ARGS"
)

// helperArgs are a helper's parameters; each role uses the fields it needs.
type helperArgs struct {
	Path     string // the filter file
	Progress string // the progress file (see progress)
	ID       uint32 // writer id: key family and progress slot
	Keys     uint64 // keys to add or test
	Writers  int    // number of writers whose progress a reader follows
	Mode     string // how a writer adds: add, string or batch
	ReadOnly bool   // open read-only
	Exact    bool   // open with OpenOptions.ExactCount
	Seed     uint64 // random seed
}

// helperRoles maps a role to the code a helper runs.
var helperRoles = map[string]func(t *testing.T, h *helper){
	"writer":       roleWriter,
	"reader":       roleReader,
	"testandadd":   roleTestAndAdd,
	"hold":         roleHold,
	"exclusive":    roleExclusive,
	"contend":      roleContend,
	"syncer":       roleSyncer,
	"plainread":    rolePlainRead,
	"diskfull":     roleDiskFull,
	"diskspace":    roleDiskSpace,
	"unprivileged": roleUnprivileged,
}

// TestHelperProcess is not a test: it is the entry point of the helper
// processes the multi-process tests start, and skips when run directly.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(envHelperRole)
	if role == "" {
		t.Skip("entry point of the multi-process tests' helpers; runs only in a re-executed test binary")
	}
	run, ok := helperRoles[role]
	require.True(t, ok, "unknown helper role %q", role)
	var args helperArgs
	require.NoError(t, json.Unmarshal([]byte(os.Getenv(envHelperArgs)), &args))
	out := os.NewFile(3, "parent")
	require.NotNil(t, out)
	defer out.Close()
	run(t, &helper{args: args, enc: json.NewEncoder(out), in: bufio.NewReader(os.Stdin)})
}

// helper is a helper process's end of the harness.
type helper struct {
	args helperArgs
	enc  *json.Encoder
	in   *bufio.Reader
}

// send sends v to the parent.
func (h *helper) send(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, h.enc.Encode(v))
}

// command waits for the parent's next command line; ok is false when the
// parent closed stdin.
func (h *helper) command() (cmd string, ok bool) {
	line, err := h.in.ReadString('\n')
	if err != nil {
		return "", false
	}
	return line[:len(line)-1], true
}

// waitStop blocks until the parent closes stdin.
func (h *helper) waitStop() { _, _ = io.Copy(io.Discard, h.in) }

// stopFlag returns a flag set when the parent closes stdin.
func (h *helper) stopFlag() *atomic.Bool {
	var stop atomic.Bool
	go func() {
		h.waitStop()
		stop.Store(true)
	}()
	return &stop
}

// proc is the parent's end of a helper process.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	dec    *json.Decoder
	out    syncBuffer
	exited chan struct{}
	err    error // the exit status; set before exited is closed
}

// syncBuffer collects a helper's stdout and stderr.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startHelper starts a helper process playing role. Options adjust the
// command before it starts (credentials, namespaces). The helper is
// killed, if still running, when the test ends, and dies with the parent.
func startHelper(t *testing.T, role string, args helperArgs, opts ...func(*exec.Cmd)) *proc {
	t.Helper()
	p, err := tryStartHelper(t, role, args, opts...)
	require.NoError(t, err, "start helper %s", role)
	return p
}

// tryStartHelper is startHelper returning the error of starting the
// process (an option asked for something this system refuses).
func tryStartHelper(t *testing.T, role string, args helperArgs, opts ...func(*exec.Cmd)) (*proc, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	enc, err := json.Marshal(args)
	require.NoError(t, err)
	p := &proc{name: fmt.Sprintf("%s[%d]", role, args.ID), exited: make(chan struct{})}
	p.cmd = exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
	// A race-enabled helper would sleep a second before exiting
	// (GORACE atexit_sleep_ms defaults to 1000).
	p.cmd.Env = append(os.Environ(), envHelperRole+"="+role, envHelperArgs+"="+string(enc),
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	p.cmd.ExtraFiles = []*os.File{w}
	p.stdin, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	for _, opt := range opts {
		opt(p.cmd)
	}
	err = p.cmd.Start()
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	p.dec = json.NewDecoder(r)
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.kill()
		<-p.exited
		_ = r.Close()
	})
	return p, nil
}

// recv decodes the helper's next message into v.
func (p *proc) recv(t *testing.T, v any) {
	t.Helper()
	if err := p.dec.Decode(v); err != nil {
		<-p.exited
		require.NoError(t, err, "helper %s sent nothing (exit: %v); its output:\n%s", p.name, p.err, p.out.String())
	}
}

// recvEach receives one message from every helper of ps, concurrently,
// into into(i). When a helper exits without sending (a failed check), the
// others, which may be waiting for it, are killed and the test fails with
// its output.
func recvEach(t *testing.T, ps []*proc, into func(i int) any) {
	t.Helper()
	type result struct {
		i   int
		err error
	}
	results := make(chan result, len(ps))
	for i, p := range ps {
		v := into(i)
		go func() { results <- result{i, p.dec.Decode(v)} }()
	}
	var failed []int
	for range ps {
		r := <-results
		if r.err != nil {
			if failed == nil {
				for _, p := range ps {
					p.kill()
				}
			}
			failed = append(failed, r.i)
		}
	}
	for _, i := range failed {
		p := ps[i]
		<-p.exited
		t.Errorf("helper %s sent nothing (exit: %v); its output:\n%s", p.name, p.err, p.out.String())
	}
	if failed != nil {
		t.FailNow()
	}
}

// send sends the helper a command line.
func (p *proc) send(t *testing.T, cmd string) {
	t.Helper()
	_, err := io.WriteString(p.stdin, cmd+"\n")
	require.NoError(t, err, "helper %s", p.name)
}

// finish closes the helper's stdin (asking it to stop), waits for it to
// exit and requires that it passed.
func (p *proc) finish(t *testing.T) {
	t.Helper()
	_ = p.stdin.Close()
	<-p.exited
	require.NoError(t, p.err, "helper %s failed; its output:\n%s", p.name, p.out.String())
}

// kill sends SIGKILL (nothing happens once the helper has exited).
func (p *proc) kill() { _ = p.cmd.Process.Signal(syscall.SIGKILL) }

// killed kills the helper and waits until it is gone.
func (p *proc) killed() {
	p.kill()
	<-p.exited
}

// running reports whether the helper has not exited yet.
func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
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
func roleWriter(t *testing.T, h *helper) {
	a := h.args
	f, err := Open(a.Path, &OpenOptions{ExactCount: a.Exact})
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
	h.send(t, res)
}

// readerResult is a reader's report.
type readerResult struct {
	Checks, Absent uint64
	FirstAbsent    string
}

// roleReader tests keys until told to stop: for a random writer it loads
// the writer's progress, then tests the newest key the writer reported
// added and a random older one. Each must test present.
func roleReader(t *testing.T, h *helper) {
	a := h.args
	f, err := Open(a.Path, &OpenOptions{ReadOnly: a.ReadOnly})
	require.NoError(t, err)
	defer f.Close()
	prog := openProgress(t, a.Progress)
	stop := h.stopFlag()
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
	h.send(t, res)
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
	for li, opts := range testLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			perWriter := uint64(220_000) // 200,000 own keys and 20,000 shared
			if li > 0 && !testkit.Stress() {
				perWriter /= 10
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "many.bloom")
			distinct := writers*(perWriter-perWriter/testkit.SharedEvery) + perWriter/testkit.SharedEvery
			f, err := Create(path, distinct, 0.01, opts)
			require.NoError(t, err)
			hdr := f.Header()
			require.NoError(t, f.Close())
			prog := createProgress(t, filepath.Join(dir, "progress"), writers)
			seed := rand.Uint64()
			t.Logf("%d writers x %d keys (%d distinct), %d readers, seed %d", writers, perWriter, distinct, readers, seed)

			var rs []*proc
			for i := range readers {
				rs = append(rs, startHelper(t, "reader", helperArgs{
					Path: path, Progress: prog.path, ID: uint32(i), Writers: writers, ReadOnly: i == 0, Seed: seed,
				}))
			}
			var ws []*proc
			for w := range writers {
				ws = append(ws, startHelper(t, "writer", helperArgs{
					Path: path, Progress: prog.path, ID: uint32(w), Keys: perWriter, Mode: modes[w%len(modes)],
				}))
			}
			results := make([]writerResult, writers)
			recvEach(t, ws, func(i int) any { return &results[i] })
			var adds uint64
			for i, w := range ws {
				w.finish(t)
				adds += results[i].Adds
			}
			require.Equal(t, writers*perWriter, adds)
			for w := range uint32(writers) {
				require.Equal(t, perWriter, prog.load(w), "progress of writer %d", w)
			}
			for _, r := range rs {
				_ = r.stdin.Close()
				var res readerResult
				r.recv(t, &res)
				r.finish(t)
				t.Logf("%s: %d checks, %d absent", r.name, res.Checks, res.Absent)
				assert.Positive(t, res.Checks, "reader checked nothing")
				assert.Zero(t, res.Absent, "reader saw a reported key absent: first %s", res.FirstAbsent)
			}

			f, err = Open(path, &OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			defer f.Close()
			count, err := f.Count()
			require.NoError(t, err)
			all := testkit.WriterKeys(0, 0, perWriter) // the shared keys once, then each writer's own
			for w := uint32(1); w < writers; w++ {
				all = append(all, slices.DeleteFunc(testkit.WriterKeys(w, 0, perWriter), func(k []byte) bool { return k[0] == 's' })...)
			}
			requireConcurrentCount(t, f, all, adds, count, "after the writers")
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
func roleTestAndAdd(t *testing.T, h *helper) {
	a := h.args
	f, err := Open(a.Path, nil)
	require.NoError(t, err)
	defer f.Close()
	prog := openProgress(t, a.Progress)
	h.send(t, "ready")
	cmd, ok := h.command()
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
	h.send(t, res)
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
	for _, opts := range testLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			f := newTestFilter(t, keys, 0.01, opts)
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
			var ps []*proc
			for r := range racers {
				ps = append(ps, startHelper(t, "testandadd", helperArgs{
					Path: path, Progress: prog.path, ID: uint32(r), Keys: keys, Writers: racers,
				}))
			}
			ready := make([]string, racers)
			recvEach(t, ps, func(i int) any { return &ready[i] })
			for _, p := range ps {
				p.send(t, "go")
			}
			results := make([]testAndAddResult, racers)
			recvEach(t, ps, func(i int) any { return &results[i] })
			answers := make([][]bool, racers)
			for r, p := range ps {
				p.finish(t)
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
