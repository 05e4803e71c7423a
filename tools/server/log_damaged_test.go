package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// findDamaged reports the filter files and sets the library refuses as
// damaged, with their key's stream, and leaves intact ones, other
// files and temporary files alone.
func TestFindDamaged(t *testing.T) {
	lay := replication.Layout{Streams: 16}
	tests := []struct {
		name   string
		damage func(t *testing.T, path string) // of the key's file
		want   error                           // nil: not damaged
	}{
		{"intact", func(*testing.T, string) {}, nil},
		{"truncated to half", func(t *testing.T, p string) { truncateBy(t, p, 2) }, format.ErrTruncated},
		{"truncated into the header", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 10)) }, format.ErrShortHeader},
		{"header flipped", func(t *testing.T, p string) { flipAt(t, p, 24) }, format.ErrChecksum},
		{"count flipped (not covered by the header CRC)", func(t *testing.T, p string) { flipAt(t, p, 8) }, nil},
		{"magic flipped", func(t *testing.T, p string) { flipAt(t, p, 0) }, format.ErrBadMagic},
		{"set layer truncated", nil, format.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			key := "seen:{" + tt.name + "}"
			stem, err := keyname.Stem([]byte(key))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".other.bloom.load1"), []byte("x"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
			if tt.damage == nil {
				set, err := mmapbloom.CreateSet(filepath.Join(dir, stem+keyname.SetSuffix), 1000, 0.01, nil)
				require.NoError(t, err)
				require.NoError(t, set.Close())
				layers, err := filepath.Glob(filepath.Join(dir, stem+keyname.SetSuffix, "*"+keyname.FileSuffix))
				require.NoError(t, err)
				require.NotEmpty(t, layers)
				truncateBy(t, layers[0], 2)
			} else {
				f, err := mmapbloom.Create(filepath.Join(dir, stem+keyname.FileSuffix), 1000, 0.01, nil)
				require.NoError(t, err)
				require.NoError(t, f.Close())
				tt.damage(t, filepath.Join(dir, stem+keyname.FileSuffix))
			}
			got, err := findDamaged(dir, lay, 0)
			require.NoError(t, err)
			if tt.want == nil {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.ErrorIs(t, got[0].err, tt.want)
			assert.Equal(t, []int{lay.StreamOf(cluster.KeySlot([]byte(key)))}, got[0].streams)
		})
	}
}

// truncateBy cuts the file at path to 1/d of its size.
func truncateBy(t *testing.T, path string, d int64) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, fi.Size()/d))
}

// flipAt inverts the byte at off of the file at path.
func flipAt(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= 0xff
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// BenchmarkFindDamaged: the check at start of a directory of 1,000
// intact fixed filters of 100,000 keys (one op: the whole directory).
func BenchmarkFindDamaged(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		f, err := mmapbloom.Create(filepath.Join(dir, fmt.Sprintf("k%d", i)+keyname.FileSuffix), 100_000, 0.01, nil)
		require.NoError(b, err)
		require.NoError(b, f.Close())
	}
	for b.Loop() {
		bad, err := findDamaged(dir, replication.Layout{Streams: 16}, 0)
		require.NoError(b, err)
		require.Empty(b, bad)
	}
}
