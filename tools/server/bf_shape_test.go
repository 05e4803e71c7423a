package server

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestAutoCreateShape: the filters BF.ADD creates for missing keys all
// take the first one's shape (m, k, seed: sized once, mergeable), and a
// BF.RESERVE with other arguments gets its own.
func TestAutoCreateShape(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir, DefaultCapacity: 5000})
	rdb := dial(t, addr, "")
	c := ctx(t)
	for _, k := range []string{"a", "b", "c"} {
		require.NoError(t, rdb.BFAdd(c, k, "x").Err())
	}
	require.NoError(t, rdb.BFReserveNonScaling(c, "r", 0.001, 5000).Err())
	header := func(key string) (m uint64, k uint32, seed uint64, n uint64) {
		f, err := mmapbloom.Open(filepath.Join(dir, key+".bloom"), &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		defer f.Close()
		h := f.Header()
		return h.M, h.K, h.Seed, h.N
	}
	am, ak, aseed, an := header("a")
	assert.EqualValues(t, 5000, an)
	for _, key := range []string{"b", "c"} {
		m, k, seed, n := header(key)
		assert.Equal(t, []any{am, ak, aseed, an}, []any{m, k, seed, n}, key)
	}
	rm, _, _, _ := header("r")
	assert.Greater(t, rm, am)
}
