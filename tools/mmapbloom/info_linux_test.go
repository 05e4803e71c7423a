package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestInfoColdReadsHeader drops a filter whose every page is written from
// the page cache and checks what info reads from storage: the header
// page alone, and with --stats the whole bit array.
func TestInfoColdReadsHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cold.bloom")
	f, err := mmapbloom.Create(path, 1_000_000, 1e-4, nil) // about 2.4 MB
	require.NoError(t, err)
	keys := make([][]byte, 1_000_000)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key-%d", i)
	}
	require.NoError(t, f.AddBatch(keys))
	size := int64(f.Header().ByteSize)
	require.NoError(t, f.Close())
	testkit.SkipUnlessReadsCounted(t, path)

	for _, tc := range []struct {
		args     []string
		min, max int64
	}{
		{[]string{"info", path}, 0, 64 << 10},
		{[]string{"info", "--stats", path}, size / 2, size * 2},
	} {
		testkit.DropFromCache(t, path)
		before := testkit.ReadBytes(t)
		requireOK(t, runCLI(t, nil, tc.args...))
		read := testkit.ReadBytes(t) - before
		t.Logf("%v read %d bytes of a %d-byte bit array", tc.args, read, size)
		assert.GreaterOrEqual(t, read, tc.min)
		assert.LessOrEqual(t, read, tc.max)
	}
}
