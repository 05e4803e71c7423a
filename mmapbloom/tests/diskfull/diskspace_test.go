//go:build linux

package diskfull

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func init() {
	testkit.Role("diskspace", roleDiskSpace)
}

// diskSpaceResult is the disk-space helper's report: Skip says why the
// small file system could not be made; the checks ran in the helper.
type diskSpaceResult struct{ Skip string }

// mountSmall mounts a small file system of the helper's Mode at mnt in
// the helper's own mount namespace: "ext2", a 3 MiB loop-mounted image
// (ext2 has no fallocate), or "tmpfs", 1 MiB.
func mountSmall(mode, mnt string) error {
	if mode == "tmpfs" {
		return unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m")
	}
	img := mnt + ".img"
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		return err
	}
	if err := os.Truncate(img, 3<<20); err != nil {
		return err
	}
	// The helper process has no test: its commands get
	// testkit.CommandTimeout by hand.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.CommandTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "mkfs.ext2", "-q", "-F", "-m", "0", img).CombinedOutput(); err != nil {
		return errors.New("mkfs.ext2: " + err.Error() + ": " + string(out))
	}
	if out, err := exec.CommandContext(ctx, "mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		return errors.New("mount -o loop: " + err.Error() + ": " + string(out))
	}
	return nil
}

// sparseCopy writes a copy of the filter file src at dst with only its
// header written: the bit array, all zeros, is one hole (cp
// --sparse=always makes the same of an empty filter).
func sparseCopy(t *testing.T, src, dst string) {
	t.Helper()
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, raw[:64], 0o644))
	require.NoError(t, os.Truncate(dst, int64(len(raw))))
}

// roleDiskSpace checks, on a small file system, that disk space is really
// there before the first write: Create of more than the space left fails
// with ErrNoSpace and leaves nothing, also where fallocate is unsupported
// (several creates never promise more than the free space); a filter
// copied sparse onto a full disk fails Open for writing, before any key
// is added, and opens read-only (where tmpfs cannot even read its holes,
// a read fails with ErrNoSpace); a filter created before the disk filled
// takes adds on every page. On tmpfs it also frees a page of an open
// filter behind its back (a punched hole) on a full disk: the add that
// needs that page fails with ErrNoSpace, not as a truncated file, and the
// filter stays usable.
func roleDiskSpace(t *testing.T, h *testkit.Helper) {
	mnt := h.Args.Path
	if err := mountSmall(h.Args.Mode, mnt); err != nil {
		h.Send(t, diskSpaceResult{Skip: err.Error()})
		return
	}
	defer func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) }()
	dir := filepath.Join(mnt, "d")
	require.NoError(t, os.Mkdir(dir, 0o755))

	// Creates of 1,265,024 bytes each until the disk cannot hold another.
	var made []string
	for i := 0; ; i++ {
		path := filepath.Join(dir, string(rune('a'+i))+".bloom")
		f, err := mmapbloom.Create(path, 1_000_000, 0.01, nil)
		if err != nil {
			require.ErrorIs(t, err, mmapbloom.ErrNoSpace)
			require.ErrorIs(t, err, syscall.ENOSPC)
			require.Equal(t, made, testkit.DirNames(t, dir), "files left by the create that did not fit")
			break
		}
		require.NoError(t, f.Close())
		made = append(made, filepath.Base(path))
		require.Less(t, i, 3, "more creates succeeded than the disk holds")
	}
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(mnt, &st))
	require.Less(t, st.Bavail*uint64(st.Bsize), uint64(1_265_024), "a create failed with room left")
	for _, name := range made {
		require.NoError(t, os.Remove(filepath.Join(dir, name)))
	}

	// A filter copied sparse, then the disk fills up.
	src := filepath.Join(t.TempDir(), "src.bloom")
	f, err := mmapbloom.Create(src, 200_000, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	copied := filepath.Join(dir, "copied.bloom")
	sparseCopy(t, src, copied)
	fill(t, filepath.Join(dir, "filler"))
	_, err = mmapbloom.Open(copied, nil)
	require.ErrorIs(t, err, mmapbloom.ErrNoSpace, "open for writing of a sparse filter on a full disk")
	r, err := mmapbloom.Open(copied, &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	s, err := r.Stats()
	if h.Args.Mode == "tmpfs" {
		// tmpfs backs even a read of a hole with a new page: none to be had.
		require.ErrorIs(t, err, mmapbloom.ErrNoSpace)
	} else {
		require.NoError(t, err)
		require.Zero(t, s.Count)
		require.Zero(t, s.SetBits)
	}
	require.NoError(t, r.Close())
	require.NoError(t, os.Remove(copied))
	require.NoError(t, os.Remove(filepath.Join(dir, "filler")))

	// Created first, then the disk fills up: every page takes adds.
	path := filepath.Join(dir, "early.bloom")
	f, err = mmapbloom.Create(path, 300_000, 0.01, nil)
	require.NoError(t, err)
	fill(t, filepath.Join(dir, "filler"))
	keys := testkit.WriterKeys(1, 0, 300_000)
	require.NoError(t, f.AddBatch(keys))
	testkit.RequireAllPresent(t, f, 1, 0, 300_000)

	if h.Args.Mode == "tmpfs" {
		// A page freed behind the filter's back on the full disk (through
		// a descriptor of its own: the hole is in the file, whichever
		// descriptor punched it).
		punch, err := os.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		require.NoError(t, unix.Fallocate(int(punch.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 64<<10, 4096))
		require.NoError(t, punch.Close())
		fill(t, filepath.Join(dir, "filler2"))
		inHole := func(key []byte) bool { // the block of key (blocked512: one) in the freed page
			b := f.Locations(key)[0] / 8
			return b >= (64<<10)-64 && b < (64<<10)-64+4096
		}
		var hit []byte
		for i := range uint64(1 << 20) {
			if key := testkit.WriterKey(make([]byte, 13), 2, i); inHole(key) {
				hit = key
				break
			}
		}
		require.NotNil(t, hit, "no key falls in the freed page")
		err = f.Add(hit)
		require.ErrorIs(t, err, mmapbloom.ErrNoSpace, "an add into a freed page on a full disk")
		require.NotErrorIs(t, err, mmapbloom.ErrFileChanged)
		// A key added before, outside the freed page (tmpfs backs even a
		// read of it with a new page, none to be had: the filter's seed is
		// random, and keys[0] fell there about once in 90 runs).
		kept := keys[slices.IndexFunc(keys, func(k []byte) bool { return !inHole(k) })]
		ok, err := f.Test(kept)
		require.NoError(t, err, "the filter stays usable")
		require.True(t, ok)
	}
	require.NoError(t, f.Close())
	h.Send(t, diskSpaceResult{})
}

// TestDiskSpace runs roleDiskSpace on a loop-mounted 3 MiB ext2 image (no
// fallocate: the code must write zeros and touch holes) and on a 1 MiB
// tmpfs, each in a helper with its own mount namespace. It needs root;
// outside CI it skips when mounting is impossible, in CI (CI=true) that
// is a failure.
func TestDiskSpace(t *testing.T) {
	skip := t.Skipf
	if os.Getenv("CI") == "true" {
		skip = t.Fatalf
	}
	if os.Geteuid() != 0 {
		skip("mounting a small file system needs root")
		return
	}
	for _, mode := range []string{"ext2", "tmpfs"} {
		t.Run(mode, func(t *testing.T) {
			mnt := filepath.Join(t.TempDir(), "mnt")
			require.NoError(t, os.Mkdir(mnt, 0o755))
			p, err := testkit.TryStartHelper(t, "diskspace", testkit.HelperArgs{Path: mnt, Mode: mode}, func(c *exec.Cmd) {
				c.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
			})
			if err != nil {
				skip("cannot start a helper in its own mount namespace: %v", err)
				return
			}
			var res diskSpaceResult
			p.Recv(t, &res)
			p.Finish(t)
			if res.Skip != "" {
				skip("%s: %s", mode, res.Skip)
			}
		})
	}
}
