package diskfull

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/internal/testkit/powercut"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// powercutKeys are the keys of round r of the power-cut tests.
func powercutKeys(r, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "https://example.com/round%d/%d", r, i)
	}
	return keys
}

// TestSyncSurvivesPowerCut: every key added before a Sync that returned
// nil answers present after a power cut, with the disk failing (EIO)
// and healing between two Syncs: a Sync after a failed one writes every
// page again, since the kernel marks pages whose write-back failed clean
// and a plain msync would never write them.
func TestSyncSurvivesPowerCut(t *testing.T) {
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			disk := t.TempDir()
			p := powercut.Mount(t, disk)
			const n = 20_000
			f, err := mmapbloom.Create(filepath.Join(p.Dir, "seen.bloom"), 3*n, 0.001, opts)
			require.NoError(t, err)
			synced := powercutKeys(0, n)
			require.NoError(t, f.AddBatch(synced))
			require.NoError(t, f.Sync())

			failed := powercutKeys(1, n)
			require.NoError(t, f.AddBatch(failed))
			require.NoError(t, p.Fail())
			require.Error(t, f.Sync(), "the disk answers EIO")
			require.NoError(t, p.Heal())
			require.NoError(t, f.Sync(), "the disk is back")
			synced = append(synced, failed...)

			require.NoError(t, f.AddBatch(powercutKeys(2, n))) // never synced: may be lost
			require.NoError(t, p.Cut())
			_ = f.Close()
			require.NoError(t, p.Unmount())

			g, err := mmapbloom.Open(filepath.Join(disk, "seen.bloom"), &mmapbloom.OpenOptions{ReadOnly: true})
			require.NoError(t, err, "the file opens after the cut")
			defer g.Close()
			present := make([]bool, len(synced))
			require.NoError(t, g.TestBatch(synced, present))
			lost := 0
			for _, ok := range present {
				if !ok {
					lost++
				}
			}
			assert.Zero(t, lost, "keys added before a Sync that returned nil, lost to the cut")
		})
	}
}
