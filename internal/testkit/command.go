package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CommandTimeout bounds a child process a test runs to completion
// (Command): generous on a loaded 2-core machine, and well under go
// test's default -timeout of 10 minutes, so that a hung child fails its
// own test, with its output, instead of the whole test binary's panic.
const CommandTimeout = 5 * time.Minute

// waitDelay is how long Wait waits for a killed or exited child's output
// pipes to close (exec.Cmd.WaitDelay): a grandchild that inherited them
// cannot hold the test past it.
const waitDelay = 10 * time.Second

// Command returns exec.CommandContext for name and args under a context
// that ends CommandTimeout from now, or when the test ends: the process
// is killed then (SIGKILL), and Wait returns at most waitDelay later.
// For a child that runs to completion: a client, a script, a build.
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	return commandUntil(t, time.Now().Add(CommandTimeout), name, args...)
}

// processGrace is how long before the test binary's deadline (go test
// -timeout) Process kills its child, so that the test fails with the
// child's output first.
const processGrace = time.Minute

// Process is Command for a child that lives as long as its test (a
// server the test stops itself): its context ends processGrace before
// the test binary's deadline (go test -timeout, 10 minutes by default;
// CommandTimeout from now where the binary has none), or when the test
// ends.
func Process(t testing.TB, name string, args ...string) *exec.Cmd {
	deadline := time.Now().Add(CommandTimeout)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			deadline = end.Add(-processGrace)
		}
	}
	return commandUntil(t, deadline, name, args...)
}

// commandUntil is exec.CommandContext under a context that ends at
// deadline or when the test ends.
func commandUntil(t testing.TB, deadline time.Time, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = waitDelay
	return cmd
}

// built holds the programs Binary built in this test binary, by import
// path, in one temporary directory.
var built struct {
	sync.Mutex
	dir   string
	paths map[string]string
	errs  map[string]error
}

// Binary builds the main package pkg (an import path, such as
// "github.com/mmapbloom/mmapbloom/tools/mmapbloom") once per test binary
// and returns the program's path. The test fails if it does not build.
// TestMain calls RemoveBinaries after the tests.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if p, ok := built.paths[pkg]; ok {
		return p
	}
	if err, ok := built.errs[pkg]; ok {
		require.NoError(t, err)
	}
	p, err := build(pkg)
	if err != nil {
		if built.errs == nil {
			built.errs = map[string]error{}
		}
		built.errs[pkg] = err
		require.NoError(t, err)
	}
	if built.paths == nil {
		built.paths = map[string]string{}
	}
	built.paths[pkg] = p
	return p
}

// build runs go build for pkg into the temporary directory of Binary.
func build(pkg string) (string, error) {
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "mmapbloom-bin")
		if err != nil {
			return "", err
		}
		built.dir = dir
	}
	out := filepath.Join(built.dir, fmt.Sprintf("%d-%s", len(built.paths), path.Base(pkg)))
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, "go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, msg)
	}
	return out, nil
}

// RemoveBinaries removes what Binary built (TestMain calls it after
// m.Run).
func RemoveBinaries() {
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	built.dir, built.paths, built.errs = "", nil, nil
}

// Result is what one run of a program gave: its output and exit status.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs the program bin with args and stdin as its input (killed
// after CommandTimeout: Command), and returns its output and exit
// status. The test fails if bin cannot be started.
func Run(t testing.TB, bin string, stdin []byte, args ...string) Result {
	t.Helper()
	cmd := Command(t, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errOut
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return Result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// RequireFailure checks that a run of the program prog failed with exit
// status code and one line on stderr naming prog once ("prog: ..."),
// holding contains, without a panic or stack trace.
func RequireFailure(t testing.TB, r Result, prog string, code int, contains string) {
	t.Helper()
	prefix := prog + ": "
	require.Equal(t, code, r.Code, "stdout: %q stderr: %q", r.Stdout, r.Stderr)
	require.True(t, strings.HasPrefix(r.Stderr, prefix), "stderr: %q", r.Stderr)
	require.Equal(t, 1, strings.Count(r.Stderr, prefix), "stderr: %q", r.Stderr)
	require.Equal(t, 1, strings.Count(r.Stderr, "\n"), "stderr: %q", r.Stderr)
	require.True(t, strings.HasSuffix(r.Stderr, "\n"), "stderr: %q", r.Stderr)
	assert.NotContains(t, r.Stderr, "panic")
	assert.NotContains(t, r.Stderr, "goroutine")
	assert.Contains(t, r.Stderr, contains)
}
