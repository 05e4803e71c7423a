package mapping_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// TestResident checks the residency sample: a file just written is
// resident, the same file dropped from the page cache is not, whatever
// its size (under a page: a tiny filter; fewer pages than the sample;
// many), and an empty view is not.
func TestResident(t *testing.T) {
	for _, size := range []int{72, 3 * 4096, 4 << 20} {
		path := filepath.Join(t.TempDir(), "r.bin")
		require.NoError(t, os.WriteFile(path, make([]byte, size), 0o644))
		file, err := os.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		defer file.Close()
		for _, tc := range []struct {
			name string
			drop bool
			want bool
		}{
			{"written", false, true},
			{"dropped", true, false},
		} {
			t.Run(fmt.Sprintf("%d/%s", size, tc.name), func(t *testing.T) {
				if tc.drop {
					testkit.SkipUnlessReadsCounted(t, path) // drops the file, then reads it
					testkit.DropFromCache(t, path)
				}
				m, err := mapping.Map(file, uint64(size), true, false)
				require.NoError(t, err)
				defer m.Unmap()
				require.Equal(t, tc.want, mapping.Resident(m))
			})
		}
	}
	require.False(t, mapping.Resident(nil))
}

// TestResidentBytes counts the resident bytes of a mapping across more
// than one mincore call (residentBatch pages) with a partial last page:
// all of a file just written, none of it once dropped from the page
// cache, and mincore's error for a range that is not a mapping's.
func TestResidentBytes(t *testing.T) {
	const size = 17<<20 + 100
	path := filepath.Join(t.TempDir(), "r.bin")
	require.NoError(t, os.WriteFile(path, make([]byte, size), 0o644))
	file, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer file.Close()
	for _, tc := range []struct {
		name string
		drop bool
		want uint64
	}{
		{"written", false, size},
		{"dropped", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.drop {
				testkit.SkipUnlessReadsCounted(t, path) // drops the file, then reads it
				testkit.DropFromCache(t, path)
			}
			m, err := mapping.Map(file, size, true, false)
			require.NoError(t, err)
			defer m.Unmap()
			n, err := mapping.ResidentBytes(m)
			require.NoError(t, err)
			require.Equal(t, tc.want, n)
		})
	}

	n, err := mapping.ResidentBytes(nil)
	require.NoError(t, err)
	require.Zero(t, n)

	m, err := mapping.Map(file, size, true, false)
	require.NoError(t, err)
	defer m.Unmap()
	_, err = mapping.ResidentBytes(m[1:]) // not at a page boundary
	require.ErrorIs(t, err, unix.EINVAL)
}

// TestWillNeed checks that WillNeed on a page of a file dropped from the
// page cache has the kernel read it (and only it: its neighbours stay out,
// for the mapping's random access), without touching the mapping. The
// read is asynchronous: the test waits for it, a bounded number of times.
func TestWillNeed(t *testing.T) {
	const size = 4 << 20
	path := filepath.Join(t.TempDir(), "w.bin")
	require.NoError(t, os.WriteFile(path, make([]byte, size), 0o644))
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	testkit.SkipUnlessReadsCounted(t, path)
	testkit.DropFromCache(t, path)
	m, err := mapping.Map(file, size, true, false)
	require.NoError(t, err)
	defer m.Unmap()
	page := os.Getpagesize()
	off := 300*page + 123 // inside page 300
	mapping.WillNeed(m, uint64(off))
	resident := func(p int) uint64 {
		n, err := mapping.ResidentBytes(m[p*page : (p+1)*page])
		require.NoError(t, err)
		return n
	}
	for i := 0; i < 3000 && resident(300) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	require.EqualValues(t, page, resident(300), "the page asked for")
	require.Zero(t, resident(310), "a page not asked for")
	mapping.WillNeed(m, size-1) // the last page: the range ends with the mapping
}
