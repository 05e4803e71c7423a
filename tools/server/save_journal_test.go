package server

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/journal"
)

// journalFiles lists the journal's files in dir.
func journalFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, journal.DirName, "*.mbj"))
	require.NoError(t, err)
	return files
}

// copyTree copies the data directory src, as a crash would leave it
// (files as the page cache has them, the journal as written), to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// TestJournalReplaysInOrder: with always, a server started on what a
// crash left applies the journal's records in their order: a key
// deleted and created again holds only what was added after the DEL
// (BF.CARD counts the adds the replay made), a reserved key keeps its
// parameters, RENAME and FLUSHALL (as its DELs) apply in their place.
func TestJournalReplaysInOrder(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir, AppendFsync: AppendFsyncAlways, DefaultCapacity: 1000})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "k", "x").Err())
	require.NoError(t, rdb.Del(c, "k").Err())
	require.NoError(t, rdb.BFReserve(c, "k", 0.001, 5000).Err())
	pipe := rdb.Pipeline()
	for _, item := range []string{"y", "z", "w"} {
		pipe.BFAdd(c, "k", item) // one batch call, one record
	}
	_, err := pipe.Exec(c)
	require.NoError(t, err)
	require.NoError(t, rdb.BFMAdd(c, "other", "a", "b").Err())
	require.NoError(t, rdb.Rename(c, "other", "moved").Err())
	require.NoError(t, rdb.BFAdd(c, "gone", "g").Err())
	require.NoError(t, rdb.FlushAll(c).Err())
	require.NoError(t, rdb.BFReserve(c, "k", 0.001, 5000).Err())
	pipe = rdb.Pipeline()
	for _, item := range []string{"y", "z", "w"} {
		pipe.BFAdd(c, "k", item)
	}
	_, err = pipe.Exec(c)
	require.NoError(t, err)
	require.NoError(t, rdb.BFMAdd(c, "moved", "a", "b").Err())
	require.NotEmpty(t, journalFiles(t, dir), "the writes are in the journal")

	crashed := t.TempDir()
	copyTree(t, dir, crashed)
	_, addr2 := startServer(t, Config{Dir: crashed, AppendFsync: AppendFsyncEverysec})
	rdb2 := dial(t, addr2, "")
	assert.EqualValues(t, 3, rdb2.BFCard(c, "k").Val(), "x went with the DEL; y, z, w replayed once")
	info := rdb2.BFInfo(c, "k").Val()
	assert.EqualValues(t, 5000, info.Capacity, "BF.RESERVE's parameters")
	assert.Equal(t, []bool{true, true, true}, rdb2.BFMExists(c, "k", "y", "z", "w").Val())
	assert.Equal(t, []bool{true, true}, rdb2.BFMExists(c, "moved", "a", "b").Val())
	assert.EqualValues(t, 2, rdb2.BFCard(c, "moved").Val(), "RENAME, FLUSHALL, then the adds again")
	assert.Zero(t, rdb2.Exists(c, "other", "gone").Val(), "FLUSHALL's DELs replayed")
	assert.Empty(t, journalFiles(t, crashed), "replayed, checkpointed, removed")
}

// TestJournalCheckpoints: leaving always checkpoints the journal (its
// files removed within a few of fsyncLoop's seconds), and so does a
// clean shutdown; a Sync's figures count the commits.
func TestJournalCheckpoints(t *testing.T) {
	dir := t.TempDir()
	s, addr := startServer(t, Config{Dir: dir, AppendFsync: AppendFsyncAlways})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "k", "a").Err())
	require.Len(t, journalFiles(t, dir), 1)
	assert.Positive(t, s.Stats().Syncs, "a commit is a save")
	require.NoError(t, rdb.ConfigSet(c, "appendfsync", "everysec").Err())
	require.Eventually(t, func() bool { return len(journalFiles(t, dir)) == 0 }, time.Minute, 20*time.Millisecond,
		"leaving always checkpoints the journal")
	require.NoError(t, rdb.BFAdd(c, "k", "b").Err())
	assert.Empty(t, journalFiles(t, dir), "everysec writes no journal")

	require.NoError(t, rdb.ConfigSet(c, "appendfsync", "always").Err())
	require.NoError(t, rdb.BFAdd(c, "k", "c").Err())
	require.Len(t, journalFiles(t, dir), 1)
	require.NoError(t, s.Shutdown())
	assert.Empty(t, journalFiles(t, dir), "a clean shutdown leaves no journal")
}

// TestJournalOrderUnderConcurrentWrites: clients DEL and add the same
// keys at once; the journal's records, applied on a copy of the data
// directory emptied of its filters, rebuild every key as it is: the same
// BF.CARD and the same answers for every item sent. A DEL journaled
// before an add that ran before it would drop that add.
func TestJournalOrderUnderConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir, AppendFsync: AppendFsyncAlways, DefaultCapacity: 100000})
	keys := []string{"a", "b"}
	const clients, rounds = 4, 150
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rdb, c := dial(t, addr, ""), ctx(t)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range rounds {
				key, item := keys[rng.IntN(len(keys))], fmt.Sprintf("w%d-%d", w, i)
				var err error
				switch rng.IntN(8) {
				case 0:
					err = rdb.Del(c, key).Err()
				case 1:
					err = rdb.BFMAdd(c, key, item, item+"m").Err()
				default:
					err = rdb.BFAdd(c, key, item).Err()
				}
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()

	replayed := t.TempDir()
	copyTree(t, filepath.Join(dir, journal.DirName), filepath.Join(replayed, journal.DirName)) // the journal alone
	_, addr2 := startServer(t, Config{Dir: replayed})
	rdb, rdb2, c := dial(t, addr, ""), dial(t, addr2, ""), ctx(t)
	var items []any
	for w := range clients {
		for i := range rounds {
			items = append(items, fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("w%d-%dm", w, i))
		}
	}
	for _, key := range keys {
		assert.Equal(t, rdb.Exists(c, key).Val(), rdb2.Exists(c, key).Val(), key)
		if rdb.Exists(c, key).Val() == 0 {
			continue
		}
		assert.Equal(t, rdb.BFCard(c, key).Val(), rdb2.BFCard(c, key).Val(), key)
		assert.Equal(t, rdb.BFMExists(c, key, items...).Val(), rdb2.BFMExists(c, key, items...).Val(), key)
	}
}
