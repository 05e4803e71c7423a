package replication

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// A program importing only the library (mmapbloom/ and format/)
// compiles no NATS code: the packages `go list -deps` gives for both
// (what such a program links besides the standard library) include no
// nats package. As a check of the check, this package's list does.
func TestLibraryHasNoNATS(t *testing.T) {
	deps := func(pkgs ...string) string {
		out, err := testkit.Command(t, "go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	lib := deps("github.com/mmapbloom/mmapbloom/mmapbloom", "github.com/mmapbloom/mmapbloom/format")
	require.Contains(t, lib, "github.com/mmapbloom/mmapbloom/format\n")
	for _, line := range strings.Split(lib, "\n") {
		require.NotContains(t, line, "nats-io", "the library pulls in %s", line)
	}
	require.Contains(t, deps("github.com/mmapbloom/mmapbloom/tools/replication"), "github.com/nats-io/nats.go\n")
}
