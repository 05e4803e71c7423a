package server

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A node killed between checkpoints held in its files records past the
// position it had recorded. After a damaged file of its stream is
// moved aside, the node serves no read of the stream's slots until it
// applied the stream again up to its last sequence when the log
// opened: here it was killed before its first checkpoint (its
// recorded positions are 0) and it cannot apply anything after the
// restart (a --disk-reserve no file meets stops its stream at the
// key's BF.RESERVE): its reads of the key answer TRYAGAIN, never
// absent for the adds its files held.
func TestRebuildServesNoReadBeforeLastSeq(t *testing.T) {
	tc, _ := startLoggedNodes(t, []string{"0-16383"})
	rdb := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool {
		return rdb.Do(ctx(t), "BF.RESERVE", "seen", "0.01", "1000", "NONSCALING").Err() == nil
	}, time.Minute, 50*time.Millisecond, "the log opens")
	items := []any{"a", "b", "c", "d", "e"}
	for _, it := range items {
		require.NoError(t, rdb.Do(ctx(t), "BF.ADD", "seen", it).Err())
	}
	require.NoError(t, tc.srvs[0].Shutdown())
	dir := tc.dirs[0]
	streams := make([]int, DefaultReplicationStreams)
	for i := range streams {
		streams[i] = i
	}
	_, err := replication.ForgetPositions(filepath.Join(dir, ".replication"), len(streams), streams)
	require.NoError(t, err)
	flipAt(t, filepath.Join(dir, "seen"+keyname.FileSuffix), 24)

	ln, err := net.Listen("tcp", tc.addrs[0])
	require.NoError(t, err)
	url := tc.srvs[0].cfg.Replicate.NATSURLs
	startNode(t, ln, dir, tc.conf, tc.ids[0], func(c *Config) {
		c.Replication, c.Replicate.NATSURLs = ReplicationJetStream, url
		c.Limits.DiskReserve = 1 << 62
	})
	rdb = dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool {
		info, err := rdb.Info(ctx(t), "replication").Result()
		return err == nil && strings.Contains(info, "error=MBF_LOG_")
	}, time.Minute, 50*time.Millisecond, "the log opens and the key's stream stops on the disk reserve")
	for range 20 {
		got, err := rdb.Do(ctx(t), append([]any{"BF.MEXISTS", "seen"}, items...)...).Result()
		require.Error(t, err, "BF.MEXISTS answered %v", got)
		require.Equal(t, msgRebuilding, err.Error())
		time.Sleep(10 * time.Millisecond)
	}
}
