package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// TestClusterMigrateOwnDir: MBF.MIGRATE into the node's own data
// directory, by its path or through a symbolic link to it, is refused
// before anything is paused or copied, and the live file and set keep
// every add. Before, it was accepted: it removed the live set directory
// (LOCK and CONTROL included) and renamed over the live file, and later
// adds were lost.
func TestClusterMigrateOwnDir(t *testing.T) {
	tc := startCluster(t, threeRanges)
	rdb, c := dial(t, tc.addrs[0], ""), ctx(t)
	keys := keysIn(2, 0, 1000)
	file, set := keys[0], keys[1]
	require.NoError(t, rdb.BFReserveNonScaling(c, file, 0.01, 1000).Err())
	require.NoError(t, rdb.BFReserve(c, set, 0.01, 1000).Err())
	for _, k := range keys {
		require.NoError(t, rdb.BFAdd(c, k, "before").Err())
	}
	link := filepath.Join(t.TempDir(), "alias")
	require.NoError(t, os.Symlink(tc.dirs[0], link))
	for _, dest := range []string{tc.dirs[0], link} {
		err := rdb.Do(c, "mbf.migrate", "0-1000", dest).Err()
		require.Error(t, err, dest)
		assert.Equal(t, "ERR "+dest+" is this node's own data directory: give the target node's directory (nothing paused)", err.Error())
	}
	for _, k := range keys {
		require.NoError(t, rdb.BFAdd(c, k, "after").Err(), "not paused")
		got, err := rdb.BFMExists(c, k, "before", "after").Result()
		require.NoError(t, err)
		assert.Equal(t, []bool{true, true}, got, k)
	}
	stem, err := keyname.Stem([]byte(set))
	require.NoError(t, err)
	for _, f := range []string{"LOCK", "CONTROL", "MANIFEST"} {
		assert.FileExists(t, filepath.Join(tc.dirs[0], stem+keyname.SetSuffix, f))
	}
}

// TestClusterMigrateRefusesOpenTarget: MBF.MIGRATE never renames over a
// file, nor removes a set, that another process has open in the
// destination (its lock, as DEL refuses): the copy fails with the
// library's "in use" error and the open copies are untouched. Before,
// the file was renamed over and the set directory removed under the
// open handles, whose later adds went to unlinked files.
func TestClusterMigrateRefusesOpenTarget(t *testing.T) {
	for _, kind := range []string{"file", "set"} {
		t.Run(kind, func(t *testing.T) {
			tc := startCluster(t, threeRanges)
			rdb, c := dial(t, tc.addrs[0], ""), ctx(t)
			key := keysIn(1, 0, 1000)[0]
			stem, err := keyname.Stem([]byte(key))
			require.NoError(t, err)
			var other store.Bloom // another process's handle in the target directory
			if kind == "file" {
				require.NoError(t, rdb.BFReserveNonScaling(c, key, 0.01, 1000).Err())
				f, err := mmapbloom.Create(filepath.Join(tc.dirs[1], stem+keyname.FileSuffix), 1000, 0.01, nil)
				require.NoError(t, err)
				other = store.Fixed{Filter: f}
			} else {
				require.NoError(t, rdb.BFReserve(c, key, 0.01, 1000).Err())
				other, err = store.LibrarySets{}.Create(filepath.Join(tc.dirs[1], stem+keyname.SetSuffix), 1000, 0.01, store.SetSpec{Expansion: 2})
				require.NoError(t, err)
			}
			defer other.Close()
			_, err = other.TestAndAdd([]byte("theirs"))
			require.NoError(t, err)
			err = rdb.Do(c, "mbf.migrate", "0-1000", tc.dirs[1]).Err()
			require.Error(t, err)
			assert.Contains(t, err.Error(), mmapbloom.ErrInUse.Error())
			ok, err := other.TestAndAdd([]byte("theirs"))
			require.NoError(t, err)
			assert.True(t, ok, "the open copy is still the one on disk")
			reopened, err := store.LibrarySets{}.Open(filepath.Join(tc.dirs[1], stem+keyname.SetSuffix))
			if kind == "file" {
				f, ferr := mmapbloom.Open(filepath.Join(tc.dirs[1], stem+keyname.FileSuffix), &mmapbloom.OpenOptions{ReadOnly: true})
				reopened, err = store.Fixed{Filter: f}, ferr
			}
			require.NoError(t, err)
			defer reopened.Close()
			ok, err = reopened.Test([]byte("theirs"))
			require.NoError(t, err)
			assert.True(t, ok, "not replaced on disk")
			require.NoError(t, rdb.Do(c, "mbf.migrate", "cancel").Err())
		})
	}
}
