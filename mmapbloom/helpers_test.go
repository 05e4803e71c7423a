package mmapbloom

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
)

// update rewrites the golden files this package's tests write
// (../testdata/set-sizing.md):
// go test ./mmapbloom -run TestSetSizingTable -update. Those of
// ../testdata/py are rewritten by ./tests/python's TestPythonGolden with
// its own -update; the files of testdata/ computed by Python scripts by
// those scripts.
var update = flag.Bool("update", false, "rewrite the golden files this package's tests write (../testdata/set-sizing.md)")

// newTestFilter creates a filter in t.TempDir and, when the test ends,
// checks its invariants (filecheck.Check: the file validates,
// its immutable header is unchanged, no bit beyond m is set). Black-box
// tests use internal/testkit/filtertest, which also reopens the file.
func newTestFilter(t *testing.T, n uint64, p float64, opts *CreateOptions) *Filter {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.bloom")
	f, err := Create(path, n, p, opts)
	require.NoError(t, err)
	watch(t, f)
	return f
}

// watch registers the invariant checks of newTestFilter for f.
func watch(t *testing.T, f *Filter) {
	t.Helper()
	path, hdr := f.Path(), f.Header()
	t.Cleanup(func() {
		require.NoError(t, f.Close())
		filecheck.Check(t, path, hdr)
	})
}

// absentKey is the first of "new key 0" to "new key 999" that test
// answers absent. A filter's seed is random, so any one key is a false
// positive with probability up to its p: a test that needs a new key takes
// one that tests absent instead of assuming it. It fails the test if all
// 1,000 test present, which a filter of rate r does with probability
// r^1000 (1e-2000 at r = 0.01).
func absentKey(t *testing.T, test func([]byte) (bool, error)) []byte {
	t.Helper()
	for i := range absentTries {
		key := fmt.Appendf(nil, "new key %d", i)
		ok, err := test(key)
		require.NoError(t, err)
		if !ok {
			return key
		}
	}
	require.FailNow(t, "no key tests absent", "all %d new keys test present", absentTries)
	return nil
}

// absentTries is how many keys absentKey tries.
const absentTries = 1000
