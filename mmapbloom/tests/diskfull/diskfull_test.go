//go:build linux

package diskfull

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func init() {
	testkit.Role("diskfull", roleDiskFull)
}

// diskFullCase is one case of the disk-full helper's report.
type diskFullCase struct {
	Name   string
	ENOSPC bool     // Create failed with syscall.ENOSPC
	Err    string   // Create's error
	Left   []string // names in the directory afterwards
	Want   []string // names expected there
}

// diskFullResult is the disk-full helper's report.
type diskFullResult struct {
	Skip  string
	Cases []diskFullCase
}

// fill writes zeros to path until the file system is full, and requires
// that the write that stopped failed with ENOSPC.
func fill(t *testing.T, path string) {
	t.Helper()
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	require.NoError(t, err)
	defer file.Close()
	buf := make([]byte, 4096)
	for {
		if _, err = file.Write(buf); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, syscall.ENOSPC)
}

// roleDiskFull mounts a 1 MiB tmpfs at Path in its own mount namespace
// (it vanishes with the process) and, for every layout, checks Create on
// the full disk: the error is ENOSPC and no file, temporary or final, is
// left; an Overwrite that does not fit leaves the old filter whole; and a
// filter created before the disk filled up takes adds on every page.
func roleDiskFull(t *testing.T, h *testkit.Helper) {
	mnt := h.Args.Path
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		h.Send(t, diskFullResult{Skip: "mount a tmpfs: " + err.Error()})
		return
	}
	defer func() { _ = unix.Unmount(mnt, 0) }()
	var res diskFullResult
	record := func(name, dir string, err error, want ...string) {
		c := diskFullCase{Name: name, ENOSPC: errors.Is(err, syscall.ENOSPC), Left: testkit.DirNames(t, dir), Want: want}
		if err != nil {
			c.Err = err.Error()
		}
		res.Cases = append(res.Cases, c)
	}
	for _, opts := range filtertest.Layouts {
		dir := filepath.Join(mnt, filtertest.LayoutName(opts))
		require.NoError(t, os.Mkdir(dir, 0o755))
		path := filepath.Join(dir, "f.bloom")
		filler := filepath.Join(dir, "filler")

		// Larger than the whole disk.
		f, err := mmapbloom.Create(path, 1_000_000, 0.01, opts)
		require.Nil(t, f)
		record(filtertest.LayoutName(opts)+"/larger-than-disk", dir, err)

		// Larger than the space left.
		require.NoError(t, os.WriteFile(filler, make([]byte, 700<<10), 0o644))
		f, err = mmapbloom.CreateWithMK(path, 500<<13, 7, opts) // 500 KiB of bits
		require.Nil(t, f)
		record(filtertest.LayoutName(opts)+"/larger-than-space-left", dir, err, "filler")
		require.NoError(t, os.Remove(filler))

		// Overwrite that does not fit: the old filter stays whole.
		f, err = mmapbloom.Create(path, 10_000, 0.01, filtertest.WithSeed(opts, 77))
		require.NoError(t, err)
		require.NoError(t, f.AddBatch(testkit.WriterKeys(0, 0, 10_000)))
		require.NoError(t, f.Close())
		require.NoError(t, os.WriteFile(filler, make([]byte, 800<<10), 0o644))
		g, err := mmapbloom.Create(path, 1_000_000, 0.01, &mmapbloom.CreateOptions{Overwrite: true})
		require.Nil(t, g)
		record(filtertest.LayoutName(opts)+"/overwrite", dir, err, "f.bloom", "filler")
		f, err = mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		require.Equal(t, uint64(77), f.Header().Seed)
		testkit.RequireAllPresent(t, f, 0, 0, 10_000)
		require.NoError(t, f.Close())
		require.NoError(t, os.Remove(filler))
		require.NoError(t, os.Remove(path))

		// Created first, then the disk fills up: every page takes adds,
		// since Create reserved them.
		f, err = mmapbloom.Create(path, 200_000, 0.01, opts)
		require.NoError(t, err)
		fill(t, filler)
		require.NoError(t, f.AddBatch(testkit.WriterKeys(1, 0, 200_000)))
		st, err := f.Stats()
		require.NoError(t, err)
		require.Greater(t, st.FillRatio, 0.4)
		require.NoError(t, f.Sync())
		testkit.RequireAllPresent(t, f, 1, 0, 200_000)
		require.NoError(t, f.Close())
		require.NoError(t, os.RemoveAll(dir))
	}
	h.Send(t, res)
}

// TestDiskFull runs roleDiskFull in a helper process with its own mount
// namespace (root only: it mounts a 1 MiB tmpfs) and requires each Create
// that does not fit to fail with syscall.ENOSPC and leave nothing behind.
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := filepath.Join(t.TempDir(), "mnt")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	p, err := testkit.TryStartHelper(t, "diskfull", testkit.HelperArgs{Path: mnt}, func(c *exec.Cmd) {
		c.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
	})
	if err != nil {
		t.Skipf("cannot start a helper in its own mount namespace: %v", err)
	}
	var res diskFullResult
	p.Recv(t, &res)
	p.Finish(t)
	if res.Skip != "" {
		t.Skip(res.Skip)
	}
	require.Len(t, res.Cases, 3*len(filtertest.Layouts))
	for _, c := range res.Cases {
		t.Logf("%s: %s", c.Name, c.Err)
		require.True(t, c.ENOSPC, "%s: not ENOSPC: %s", c.Name, c.Err)
		require.Equal(t, c.Want, c.Left, "%s: files left", c.Name)
	}
}
