package mapping_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// TestResident checks the residency sample: a file just written is
// resident, the same file dropped from the page cache is not, and an
// empty view is not.
func TestResident(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.bin")
	require.NoError(t, os.WriteFile(path, make([]byte, 4<<20), 0o644))
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
		t.Run(tc.name, func(t *testing.T) {
			if tc.drop {
				testkit.SkipUnlessReadsCounted(t, path) // drops the file, then reads it
				testkit.DropFromCache(t, path)
			}
			m, err := mapping.Map(file, 4<<20, true, false)
			require.NoError(t, err)
			defer m.Unmap()
			require.Equal(t, tc.want, mapping.Resident(m))
		})
	}
	require.False(t, mapping.Resident(nil))
}
