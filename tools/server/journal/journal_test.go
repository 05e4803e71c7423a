package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication"
)

func add(key string, items ...string) replication.Record {
	f := [][]byte{[]byte(key)}
	for _, it := range items {
		f = append(f, []byte(it))
	}
	return replication.Record{Op: replication.OpAdd, Fields: f}
}

func cmd(args ...string) replication.Record {
	var f [][]byte
	for _, a := range args {
		f = append(f, []byte(a))
	}
	return replication.Record{Op: replication.OpCommand, Fields: f}
}

// readAll returns the records of the files at paths, in order.
func readAll(t *testing.T, paths []string) (recs []replication.Record, torn []bool) {
	t.Helper()
	for _, p := range paths {
		_, tr, err := Read(p, func(r replication.Record) error { recs = append(recs, r); return nil })
		require.NoError(t, err)
		torn = append(torn, tr)
	}
	return recs, torn
}

// TestCommitReadCheckpoint: committed records come back in order from
// the files a later Open finds; a Checkpoint whose Sync fails keeps the
// files, one that succeeds removes them; new files are numbered after
// the old ones.
func TestCommitReadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	j, old, err := Open(dir)
	require.NoError(t, err)
	assert.Empty(t, old)
	require.NoError(t, j.Commit(), "nothing appended: nothing written")
	assert.Zero(t, j.Size())

	want := []replication.Record{add("k", "a"), cmd("DEL", "k"), add("k", "b", "c")}
	j.Append(want[0])
	j.Append(want[1])
	require.NoError(t, j.Commit())
	j.Append(want[2])
	require.NoError(t, j.Commit())
	assert.Positive(t, j.Size())
	require.NoError(t, j.Close())

	j2, old, err := Open(dir)
	require.NoError(t, err)
	require.Len(t, old, 1)
	got, torn := readAll(t, old)
	assert.Equal(t, want, got)
	assert.Equal(t, []bool{false}, torn)

	j2.Append(add("k", "d"))
	failed := errors.New("disk")
	require.ErrorIs(t, j2.Checkpoint(func() error { return failed }), failed)
	files, _ := filepath.Glob(filepath.Join(dir, DirName, "*.mbj"))
	assert.Len(t, files, 2, "a failed checkpoint removes nothing")
	assert.Equal(t, filepath.Join(dir, DirName, fmt.Sprintf(FilePattern, 2)), files[1], "numbered after the old file")
	require.NoError(t, j2.Checkpoint(func() error { return nil }))
	files, _ = filepath.Glob(filepath.Join(dir, DirName, "*.mbj"))
	assert.Empty(t, files, "a checkpoint removes every file it covers")
}

// TestReadStopsAtTornTail: a frame cut short by a crash, or failing its
// checksum, ends the file's records; the frames before it are read.
func TestReadStopsAtTornTail(t *testing.T) {
	dir := t.TempDir()
	j, _, err := Open(dir)
	require.NoError(t, err)
	j.Append(add("k", "a"))
	require.NoError(t, j.Commit())
	j.Append(add("k", "b"))
	require.NoError(t, j.Commit())
	require.NoError(t, j.Close())
	path := filepath.Join(dir, DirName, fmt.Sprintf(FilePattern, 1))
	whole, err := os.ReadFile(path)
	require.NoError(t, err)

	for name, damage := range map[string]func([]byte) []byte{
		"cut in the length": func(b []byte) []byte { return b[:len(b)-len(b)/2+1] },
		"cut in the batch":  func(b []byte) []byte { return b[:len(b)-3] },
		"flipped bit": func(b []byte) []byte {
			b = bytes.Clone(b)
			b[len(b)-6] ^= 1
			return b
		},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, damage(whole), 0o644))
			got, torn := readAll(t, []string{path})
			assert.Equal(t, []replication.Record{add("k", "a")}, got)
			assert.Equal(t, []bool{true}, torn)
		})
	}
}

// FuzzRead: any file reads without a panic or an allocation larger than
// the file, and every record it gives is one a valid batch holds.
func FuzzRead(f *testing.F) {
	dir := f.TempDir()
	j, _, err := Open(dir)
	require.NoError(f, err)
	j.Append(add("k", "a", "b"))
	j.Append(cmd("BF.RESERVE", "k", "0.01", "100"))
	require.NoError(f, j.Commit())
	require.NoError(f, j.Close())
	seed, err := os.ReadFile(filepath.Join(dir, DirName, fmt.Sprintf(FilePattern, 1)))
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 'M', 'B', 'F', 'L'})
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		_, _, err := readFrames(bytes.NewReader(data), int64(len(data)), func(r replication.Record) error {
			n++
			assert.Contains(t, []replication.Op{replication.OpAdd, replication.OpCommand}, r.Op)
			return nil
		})
		assert.NoError(t, err)
		assert.LessOrEqual(t, n, len(data))
	})
}
