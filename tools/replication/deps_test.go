package replication

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// thisPackage is the import path of package replication, under which
// every NATS import of the project stays.
const thisPackage = "github.com/mmapbloom/mmapbloom/tools/replication"

// A program importing only the library (mmapbloom/ and format/)
// compiles no NATS code: the packages `go list -deps` gives for both
// (what such a program links besides the standard library) include no
// nats package. And no package of the repository outside
// tools/replication and its subpackages imports a nats-io package, in
// its code or its tests (go list's Imports, TestImports and
// XTestImports of every package of the workspace). As a check of the
// check, this package's lists do.
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
	require.Contains(t, deps(thisPackage), "github.com/nats-io/nats.go\n")

	imports := natsImports(t)
	require.Contains(t, imports, thisPackage)
	for pkg, nats := range imports {
		if pkg != thisPackage && !strings.HasPrefix(pkg, thisPackage+"/") {
			assert.Fail(t, "a NATS import outside tools/replication", "%s imports %s", pkg, strings.Join(nats, ", "))
		}
	}
}

// natsImports returns the packages of the workspace importing nats-io
// packages, in their code or their tests, each with those imports.
func natsImports(t *testing.T) map[string][]string {
	t.Helper()
	const format = `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`
	out, err := testkit.Command(t, "go", "list", "-f", format, "github.com/mmapbloom/mmapbloom/...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	found := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, "github.com/nats-io/") {
				found[fields[0]] = append(found[fields[0]], imp)
			}
		}
	}
	for pkg, imps := range found {
		slices.Sort(imps)
		found[pkg] = slices.Compact(imps)
	}
	return found
}
