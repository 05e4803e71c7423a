package mmapbloom_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// serverDeps are the import-path prefixes of the command's and the
// server's dependencies, none of which the library may carry.
var serverDeps = []string{
	"github.com/nats-io/", "github.com/prometheus/", "github.com/tidwall/",
	"github.com/redis/", "github.com/alecthomas/kong", "github.com/schollz/",
	"github.com/mmapbloom/mmapbloom/tools",
}

// TestLibraryDeps checks that a program importing only the library
// (mmapbloom and format) compiles none of the server's dependencies
// (`go list -deps` of the two packages), and that the library's module
// graph (`go list -m all` outside the workspace) holds none of their
// modules, so a library user's go.mod and go.sum never see them.
func TestLibraryDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot list the library's dependencies")
	}
	out, err := testkit.Command(t, goBin, "list", "-deps",
		"github.com/mmapbloom/mmapbloom/mmapbloom",
		"github.com/mmapbloom/mmapbloom/format").CombinedOutput()
	require.NoError(t, err, "go list -deps: %s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/mmapbloom/mmapbloom/mmapbloom")
	requireNone(t, deps, "package")

	cmd := testkit.Command(t, goBin, "list", "-m", "-f", "{{.Path}}", "all")
	cmd.Env = append(cmd.Environ(), "GOWORK=off")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "go list -m all: %s", out)
	requireNone(t, strings.Fields(string(out)), "module")
}

// requireNone fails when a path in paths starts with one of serverDeps.
func requireNone(t *testing.T, paths []string, what string) {
	t.Helper()
	for _, path := range paths {
		for _, prefix := range serverDeps {
			require.False(t, strings.HasPrefix(path, prefix),
				"the library's %s graph holds %s (a server dependency, prefix %s)", what, path, prefix)
		}
	}
}
