package testkit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
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

// Run runs the program bin with args and stdin as its input, and returns
// its output and exit status. The test fails if bin cannot be started.
func Run(t testing.TB, bin string, stdin []byte, args ...string) Result {
	t.Helper()
	cmd := exec.Command(bin, args...)
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
