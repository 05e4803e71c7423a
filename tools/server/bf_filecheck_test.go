package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// eventually polls BF.EXISTS key item every 10 ms until it answers
// want, for at most a minute (the check period is 20 ms here; the
// minute is for a loaded machine), and reports whether it did.
func eventually(t *testing.T, rdb *redis.Client, key, item string, want bool) bool {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		ok, err := rdb.BFExists(ctx(t), key, item).Result()
		require.NoError(t, err)
		if ok == want {
			return true
		}
	}
	return false
}

// TestReplacedFileReopened: a key's file replaced by rename (mv of a new
// sealed blocklist, the README's way of shipping) while the key is in
// use is answered from the new file within the check period, and adds
// go to the new file on disk; so is a set directory replaced by
// renames, and a removed file is absent. Before, the server answered
// from, and added to, the unlinked file for as long as the key stayed in
// use.
func TestReplacedFileReopened(t *testing.T) {
	dir := memDir(t)
	_, addr := startServer(t, Config{Dir: dir, FileCheck: 20 * time.Millisecond})
	rdb, c := dial(t, addr, ""), ctx(t)

	t.Run("file", func(t *testing.T) {
		require.NoError(t, rdb.BFReserveNonScaling(c, "bl", 0.001, 1000).Err())
		require.NoError(t, rdb.BFAdd(c, "bl", "old").Err())
		tmp := filepath.Join(dir, ".bl.new")
		f, err := mmapbloom.Create(tmp, 1000, 0.001, nil)
		require.NoError(t, err)
		require.NoError(t, f.AddString("new"))
		require.NoError(t, f.Seal())
		require.NoError(t, f.Close())
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, "bl.bloom")))
		require.True(t, eventually(t, rdb, "bl", "new", true), "the new file is never answered from")

		require.NoError(t, os.Remove(filepath.Join(dir, "bl.bloom")))
		assert.True(t, eventually(t, rdb, "bl", "new", false), "a removed file is absent")
		assert.EqualValues(t, 0, rdb.Exists(c, "bl").Val())
	})

	t.Run("set", func(t *testing.T) {
		require.NoError(t, rdb.BFReserve(c, "bs", 0.001, 1000).Err())
		require.NoError(t, rdb.BFAdd(c, "bs", "old").Err())
		tmp := filepath.Join(dir, ".bs.new")
		st, err := store.LibrarySets{}.Create(tmp, 1000, 0.001, store.SetSpec{Expansion: 2})
		require.NoError(t, err)
		_, err = st.TestAndAdd([]byte("new"))
		require.NoError(t, err)
		require.NoError(t, st.Close())
		live := filepath.Join(dir, "bs.bfset")
		require.NoError(t, os.Rename(live, live+".old"))
		require.NoError(t, os.Rename(tmp, live))
		require.True(t, eventually(t, rdb, "bs", "new", true), "the new set is never answered from")
		require.NoError(t, rdb.BFAdd(c, "bs", "after").Err())
		st, err = store.LibrarySets{}.Open(live)
		require.NoError(t, err)
		defer st.Close()
		ok, err := st.Test([]byte("after"))
		require.NoError(t, err)
		assert.True(t, ok, "the add went to the new set on disk")
	})
}
