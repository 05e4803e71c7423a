//go:build linux

package diskfull

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestBuildDiskFull: on a 1 MiB tmpfs, for every layout and build mode,
// NewBuilder of a file larger than the disk fails with ENOSPC and leaves
// no file; a Builder started before the disk filled up takes its adds,
// finishes and publishes, since NewBuilder reserved the file's blocks.
func TestBuildDiskFull(t *testing.T) {
	mnt := testkit.SmallFS(t, "1m")
	for _, opts := range filtertest.Layouts {
		for _, mode := range []mmapbloom.BuildMode{mmapbloom.BuildPrivate, mmapbloom.BuildShared} {
			t.Run(filtertest.LayoutName(opts)+"/"+mode.String(), func(t *testing.T) {
				dir := filepath.Join(mnt, "d")
				require.NoError(t, os.Mkdir(dir, 0o755))
				defer func() { require.NoError(t, os.RemoveAll(dir)) }()
				path := filepath.Join(dir, "f.bloom")
				bo := &mmapbloom.BuildOptions{CreateOptions: *filtertest.WithSeed(opts, 5), Mode: mode}

				_, err := mmapbloom.NewBuilder(path, 1_000_000, 0.01, bo)
				require.ErrorIs(t, err, syscall.ENOSPC)
				require.ErrorIs(t, err, mmapbloom.ErrNoSpace)
				require.Empty(t, testkit.DirNames(t, dir))

				b, err := mmapbloom.NewBuilder(path, 200_000, 0.01, bo)
				require.NoError(t, err)
				fill(t, filepath.Join(dir, "filler"))
				require.NoError(t, b.AddBatch(testkit.WriterKeys(1, 0, 200_000)))
				require.NoError(t, b.Finish())
				f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
				require.NoError(t, err)
				defer f.Close()
				testkit.RequireAllPresent(t, f, 1, 0, 200_000)
			})
		}
	}
}
