package testkit

// The multi-process harness: a test starts helper processes by running
// its own test binary again with -test.run=^TestHelperProcess$ and the
// role to play in the environment. A helper gets its parameters as JSON
// in the environment, sends JSON values to the parent on file descriptor
// 3, and reads the parent's commands on stdin; the parent closing stdin
// means "stop". A helper runs inside TestHelperProcess with a real
// *testing.T, so it checks with require like any test, and a failed check
// (or a race report) makes the helper exit non-zero, which the parent
// reports with the helper's output.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	envHelperRole = "MMAPBLOOM_HELPER_ROLE"
	envHelperArgs = "MMAPBLOOM_HELPER_ARGS"
)

// HelperArgs are a helper's parameters; each role uses the fields it
// needs.
type HelperArgs struct {
	Path     string // the filter file, set directory or mount point
	Progress string // the progress file (counters the parent and helpers map shared)
	ID       uint32 // writer id: key family and progress slot
	Keys     uint64 // keys to add or test, or attempts to make
	Writers  int    // number of writers whose progress a reader follows
	Mode     string // the role's variant (how a writer adds, a crash point, a file system)
	ReadOnly bool   // open read-only
	Exact    bool   // open with exact counting
	Seed     uint64 // random seed, or a clock's time in Unix ns
}

// roles maps a role to the code a helper runs; test files fill it from
// init functions through Role.
var roles = map[string]func(t *testing.T, h *Helper){}

// Role registers fn as the code a helper process playing role runs. Test
// files call it from their init functions.
func Role(role string, fn func(t *testing.T, h *Helper)) {
	if _, dup := roles[role]; dup {
		panic("testkit: helper role " + role + " registered twice")
	}
	roles[role] = fn
}

// RunHelper is the body of the test binary's TestHelperProcess, the
// entry point of the helper processes StartHelper starts: it runs the
// role the environment names, and skips when run as a plain test.
func RunHelper(t *testing.T) {
	role := os.Getenv(envHelperRole)
	if role == "" {
		t.Skip("entry point of the multi-process tests' helpers; runs only in a re-executed test binary")
	}
	run, ok := roles[role]
	require.True(t, ok, "unknown helper role %q", role)
	var args HelperArgs
	require.NoError(t, json.Unmarshal([]byte(os.Getenv(envHelperArgs)), &args))
	out := os.NewFile(3, "parent")
	require.NotNil(t, out)
	defer out.Close()
	run(t, &Helper{Args: args, enc: json.NewEncoder(out), in: bufio.NewReader(os.Stdin)})
}

// Helper is a helper process's end of the harness.
type Helper struct {
	Args HelperArgs
	enc  *json.Encoder
	in   *bufio.Reader
}

// Send sends v to the parent.
func (h *Helper) Send(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, h.enc.Encode(v))
}

// Command waits for the parent's next command line; ok is false when the
// parent closed stdin.
func (h *Helper) Command() (cmd string, ok bool) {
	line, err := h.in.ReadString('\n')
	if err != nil {
		return "", false
	}
	return line[:len(line)-1], true
}

// WaitStop blocks until the parent closes stdin.
func (h *Helper) WaitStop() { _, _ = io.Copy(io.Discard, h.in) }

// StopFlag returns a flag set when the parent closes stdin.
func (h *Helper) StopFlag() *atomic.Bool {
	var stop atomic.Bool
	go func() {
		h.WaitStop()
		stop.Store(true)
	}()
	return &stop
}

// Proc is the parent's end of a helper process.
type Proc struct {
	Name   string // role[id]
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	dec    *json.Decoder
	out    SyncBuffer
	exited chan struct{}
	err    error // the exit status; set before exited is closed
}

// StartHelper starts a helper process playing role. Options adjust the
// command before it starts (credentials, namespaces). The helper is
// killed, if still running, when the test ends, and dies with the parent.
func StartHelper(t *testing.T, role string, args HelperArgs, opts ...func(*exec.Cmd)) *Proc {
	t.Helper()
	p, err := TryStartHelper(t, role, args, opts...)
	require.NoError(t, err, "start helper %s", role)
	return p
}

// TryStartHelper is StartHelper returning the error of starting the
// process (an option asked for something this system refuses).
func TryStartHelper(t *testing.T, role string, args HelperArgs, opts ...func(*exec.Cmd)) (*Proc, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	enc, err := json.Marshal(args)
	require.NoError(t, err)
	p := &Proc{Name: fmt.Sprintf("%s[%d]", role, args.ID), exited: make(chan struct{})}
	p.cmd = Process(t, exe, "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
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
		p.Kill()
		<-p.exited
		_ = r.Close()
	})
	return p, nil
}

// Recv decodes the helper's next message into v.
func (p *Proc) Recv(t *testing.T, v any) {
	t.Helper()
	if err := p.dec.Decode(v); err != nil {
		<-p.exited
		require.NoError(t, err, "helper %s sent nothing (exit: %v); its output:\n%s", p.Name, p.err, p.out.String())
	}
}

// RecvEach receives one message from every helper of ps, concurrently,
// into into(i). When a helper exits without sending (a failed check), the
// others, which may be waiting for it, are killed and the test fails with
// its output.
func RecvEach(t *testing.T, ps []*Proc, into func(i int) any) {
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
					p.Kill()
				}
			}
			failed = append(failed, r.i)
		}
	}
	for _, i := range failed {
		p := ps[i]
		<-p.exited
		t.Errorf("helper %s sent nothing (exit: %v); its output:\n%s", p.Name, p.err, p.out.String())
	}
	if failed != nil {
		t.FailNow()
	}
}

// Send sends the helper a command line.
func (p *Proc) Send(t *testing.T, cmd string) {
	t.Helper()
	_, err := io.WriteString(p.stdin, cmd+"\n")
	require.NoError(t, err, "helper %s", p.Name)
}

// Stop closes the helper's stdin: it asks the helper to stop.
func (p *Proc) Stop() { _ = p.stdin.Close() }

// Finish asks the helper to stop, waits for it to exit and requires that
// it passed.
func (p *Proc) Finish(t *testing.T) {
	t.Helper()
	p.Stop()
	require.NoError(t, p.Wait(), "helper %s failed; its output:\n%s", p.Name, p.out.String())
}

// Wait waits for the helper to exit and returns its exit status.
func (p *Proc) Wait() error {
	<-p.exited
	return p.err
}

// Output returns what the helper wrote to stdout and stderr so far.
func (p *Proc) Output() string { return p.out.String() }

// Kill sends SIGKILL (nothing happens once the helper has exited).
func (p *Proc) Kill() { _ = p.cmd.Process.Signal(syscall.SIGKILL) }

// Killed kills the helper and waits until it is gone.
func (p *Proc) Killed() {
	p.Kill()
	<-p.exited
}

// Running reports whether the helper has not exited yet.
func (p *Proc) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}
