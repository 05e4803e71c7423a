//go:build linux

package proc

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

func init() {
	testkit.Role("syncer", roleSyncer)
	testkit.Role("plainread", rolePlainRead)
}

// dirtyKB returns the dirty kilobytes of this process's mappings of path
// (Shared_Dirty plus Private_Dirty in /proc/self/smaps): pages written and
// not yet written back to the file.
func dirtyKB(t *testing.T, path string) (kb uint64, found bool) {
	t.Helper()
	smaps, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer smaps.Close()
	sc := bufio.NewScanner(smaps)
	in := false
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's first line
			in = len(fields) >= 6 && fields[5] == path
			found = found || in
			continue
		}
		if in && (fields[0] == "Shared_Dirty:" || fields[0] == "Private_Dirty:") {
			v, err := strconv.ParseUint(fields[1], 10, 64)
			require.NoError(t, err)
			kb += v
		}
	}
	require.NoError(t, sc.Err())
	return kb, found
}

// syncerResult is the syncer's report.
type syncerResult struct {
	Synced                  uint64
	DirtyBefore, DirtyAfter uint64
	Writeback               bool // the file system writes pages back (not tmpfs)
}

// roleSyncer adds keys [0, Keys) of writer ID, calls Sync, reports, and
// then waits to be killed: it never closes or unmaps the filter.
func roleSyncer(t *testing.T, h *testkit.Helper) {
	a := h.Args
	f, err := mmapbloom.Open(a.Path, nil)
	require.NoError(t, err)
	for s := range a.Keys {
		require.NoError(t, f.Add(testkit.WriterKey(make([]byte, 13), a.ID, s)))
	}
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(a.Path, &st))
	res := syncerResult{Synced: a.Keys, Writeback: st.Type != unix.TMPFS_MAGIC}
	var found bool
	res.DirtyBefore, found = dirtyKB(t, a.Path)
	require.True(t, found, "no mapping of %s in /proc/self/smaps", a.Path)
	require.NoError(t, f.Sync())
	res.DirtyAfter, _ = dirtyKB(t, a.Path)
	h.Send(t, res)
	h.WaitStop()
}

// plainReadResult is the plain reader's report.
type plainReadResult struct{ Present, Count uint64 }

// rolePlainRead reads the filter file with plain reads (no mapping, no
// Open), decodes the header and counts how many of keys [0, Keys) of
// writer ID have every bit set.
func rolePlainRead(t *testing.T, h *testkit.Helper) {
	a := h.Args
	raw, err := os.ReadFile(a.Path)
	require.NoError(t, err)
	hdr, err := format.Decode(raw)
	require.NoError(t, err)
	require.NoError(t, hdr.CheckFileSize(int64(len(raw))))
	loc := hashing.NewLocator(hdr)
	bits := raw[format.HeaderSize:]
	locs := make([]uint64, format.MaxK)
	res := plainReadResult{Count: hdr.Count}
	for s := range a.Keys {
		all := true
		for _, p := range loc.Locate(testkit.WriterKey(make([]byte, 13), a.ID, s), locs) {
			all = all && bits[p/8]&(1<<(p%8)) != 0
		}
		if all {
			res.Present++
		}
	}
	h.Send(t, res)
}

// TestSyncDurable checks Sync: a process adds keys, calls Sync and is
// killed without closing; a fresh process reading the file with plain
// reads finds every key and the count. On a file system with writeback
// (not tmpfs), the writer's mapping of the file also has no dirty page
// left after Sync: the bits were written to the disk, not only to the
// page cache.
func TestSyncDurable(t *testing.T) {
	const keys = 50_000
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sync.bloom")
			f, err := mmapbloom.Create(path, keys, 0.01, opts)
			require.NoError(t, err)
			hdr := f.Header()
			require.NoError(t, f.Close())

			w := testkit.StartHelper(t, "syncer", testkit.HelperArgs{Path: path, ID: 3, Keys: keys})
			var res syncerResult
			w.Recv(t, &res)
			w.Killed()
			t.Logf("dirty before Sync %d kB, after %d kB (writeback: %v)", res.DirtyBefore, res.DirtyAfter, res.Writeback)
			require.Equal(t, uint64(keys), res.Synced)
			if res.Writeback {
				if res.DirtyBefore == 0 {
					t.Log("the kernel wrote the pages back before Sync (memory pressure); the dirty count shows nothing here")
				}
				require.Zero(t, res.DirtyAfter, "pages still dirty after Sync")
			} else {
				t.Log("tmpfs: no writeback to check; plain reads only")
			}

			r := testkit.StartHelper(t, "plainread", testkit.HelperArgs{Path: path, ID: 3, Keys: keys})
			var got plainReadResult
			r.Recv(t, &got)
			r.Finish(t)
			require.Equal(t, uint64(keys), got.Present, "keys found by plain reads")
			f, err = mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			require.Equal(t, testkit.SequentialCount(f, filtertest.CountsCalls(f), testkit.WriterKeys(3, 0, keys)), got.Count, "count found by plain reads")
			require.NoError(t, f.Close())
			filecheck.Check(t, path, hdr)
		})
	}
}
