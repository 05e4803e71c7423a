package e2e_test

import (
	"flag"
	"os"
	"testing"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// command is the import path of the program under test.
const command = "github.com/mmapbloom/mmapbloom/tools/mmapbloom"

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/ (redis-cli transcripts)")

func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBinaries()
	os.Exit(code)
}

// binary returns the path of the mmapbloom program, built once per test
// binary.
func binary(t *testing.T) string {
	t.Helper()
	return testkit.Binary(t, command)
}

// requireRefused runs `mmapbloom args...` and checks that it fails with
// exit status 2 and one line "mmapbloom: ..." holding contains.
func requireRefused(t *testing.T, contains string, args ...string) {
	t.Helper()
	testkit.RequireFailure(t, testkit.Run(t, binary(t), nil, args...), "mmapbloom", 2, contains)
}
