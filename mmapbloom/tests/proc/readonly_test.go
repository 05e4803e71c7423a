//go:build linux

package proc

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func init() {
	testkit.Role("unprivileged", roleUnprivileged)
}

// fileState is what a read-only open must leave alone.
type fileState struct {
	data         []byte
	mtime, ctime syscall.Timespec
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return fileState{data: data, mtime: st.Mtim, ctime: st.Ctim}
}

// TestReadOnlyOpenNeverWrites opens a mode 0444 filter read-only (sealed,
// for v2) and requires answers, ErrReadOnly from every writing call, and
// the file's bytes, mtime and ctime unchanged afterwards.
func TestReadOnlyOpenNeverWrites(t *testing.T) {
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			dir := t.TempDir()
			f := newLockFilter(t, dir, "ro.bloom", opts)
			src := newLockFilter(t, dir, "src.bloom", opts)
			defer src.Close()
			if !filtertest.IsV1(opts) {
				require.NoError(t, f.Seal())
			}
			path := f.Path()
			require.NoError(t, f.Close())
			require.NoError(t, os.Chmod(path, 0o444))
			old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			require.NoError(t, os.Chtimes(path, old, old))
			before := stateOf(t, path)

			g, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			require.True(t, g.ReadOnly())
			testkit.RequireAllPresent(t, g, 0, 0, lockKeys)
			c, err := g.Count()
			require.NoError(t, err)
			require.Equal(t, testkit.SequentialCount(g, filtertest.CountsCalls(g), testkit.WriterKeys(0, 0, lockKeys)), c)
			_, err = g.Stats()
			require.NoError(t, err)
			if filtertest.IsV1(opts) {
				require.ErrorIs(t, g.Verify(), mmapbloom.ErrNotSealed)
			} else {
				require.NoError(t, g.Verify())
			}
			require.NoError(t, g.Sync())
			key := []byte("never added")
			for name, call := range map[string]func() error{
				"Add":              func() error { return g.Add(key) },
				"AddString":        func() error { return g.AddString(string(key)) },
				"AddBatch":         func() error { return g.AddBatch([][]byte{key}) },
				"TestAndAdd":       func() error { _, err := g.TestAndAdd(key); return err },
				"TestAndAddString": func() error { _, err := g.TestAndAddString(string(key)); return err },
				"TestAndAddBatch":  func() error { return g.TestAndAddBatch([][]byte{key}, make([]bool, 1)) },
				"Clear":            g.Clear,
				"Merge":            func() error { return g.Merge(src) },
				"Seal":             g.Seal,
				"Unseal":           g.Unseal,
			} {
				require.ErrorIs(t, call(), mmapbloom.ErrReadOnly, name)
			}
			testkit.RequireAllPresent(t, g, 0, 0, lockKeys)
			require.NoError(t, g.Close())
			require.Equal(t, before, stateOf(t, path), "a read-only open changed the file")
		})
	}
}

// unprivilegedResult is the unprivileged helper's report.
type unprivilegedResult struct {
	UID                   int
	WriteErr              string
	WritePermission       bool
	ReadPresent, ReadKeys uint64
	CreateErr             string
	CreatePermission      bool
}

// roleUnprivileged runs as a user that may not write the filter (mode
// 0444, owned by root): Open for writing must fail with a permission
// error that says to open read-only; a read-only Open answers; Create in
// the directory fails with a permission error and leaves nothing.
func roleUnprivileged(t *testing.T, h *testkit.Helper) {
	res := unprivilegedResult{UID: os.Geteuid(), ReadKeys: lockKeys}
	require.NotZero(t, res.UID, "helper still runs as root")
	_, err := mmapbloom.Open(h.Args.Path, nil)
	require.Error(t, err)
	res.WriteErr, res.WritePermission = err.Error(), errors.Is(err, fs.ErrPermission)
	f, err := mmapbloom.Open(h.Args.Path, &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	testkit.RequireAllPresent(t, f, 0, 0, lockKeys)
	res.ReadPresent = lockKeys
	require.NoError(t, f.Close())
	dir := filepath.Dir(h.Args.Path)
	_, err = mmapbloom.Create(filepath.Join(dir, "new.bloom"), 10, 0.01, nil)
	require.Error(t, err)
	res.CreateErr, res.CreatePermission = err.Error(), errors.Is(err, fs.ErrPermission)
	h.Send(t, res)
}

// copyFile copies src to dst with mode perm.
func copyFile(t *testing.T, src, dst string, perm os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

// TestOpenForWritingRefused checks that a user who may not write a filter
// file (mode 0444) gets a clear permission error from Open for writing
// and answers from a read-only Open. Root ignores file modes, so as root
// the check runs in a helper process started as user nobody (from a copy
// of the test binary that nobody can run).
func TestOpenForWritingRefused(t *testing.T) {
	dir, err := os.MkdirTemp("", "mmapbloom-readonly-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	f := newLockFilter(t, dir, "ro.bloom", nil)
	path := f.Path()
	require.NoError(t, f.Close())
	require.NoError(t, os.Chmod(path, 0o444))

	if os.Geteuid() != 0 {
		_, err := mmapbloom.Open(path, nil)
		require.ErrorIs(t, err, fs.ErrPermission)
		require.Contains(t, err.Error(), "read-only")
		g, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
		require.NoError(t, err)
		testkit.RequireAllPresent(t, g, 0, 0, lockKeys)
		require.NoError(t, g.Close())
		return
	}

	uid, gid := 65534, 65534
	if u, err := user.Lookup("nobody"); err == nil {
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(dir, "helper.test")
	copyFile(t, exe, bin, 0o755)
	p, err := testkit.TryStartHelper(t, "unprivileged", testkit.HelperArgs{Path: path}, func(c *exec.Cmd) {
		c.Path, c.Args[0] = bin, bin
		c.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	})
	if err != nil {
		t.Skipf("cannot start a helper as uid %d: %v", uid, err)
	}
	var res unprivilegedResult
	p.Recv(t, &res)
	p.Finish(t)
	t.Logf("as uid %d: open for writing: %s; create: %s", res.UID, res.WriteErr, res.CreateErr)
	require.Equal(t, uid, res.UID)
	require.True(t, res.WritePermission, "not a permission error: %s", res.WriteErr)
	require.Contains(t, res.WriteErr, "open read-only")
	require.Equal(t, res.ReadKeys, res.ReadPresent)
	require.True(t, res.CreatePermission, "not a permission error: %s", res.CreateErr)
	require.Equal(t, []string{"helper.test", "ro.bloom"}, testkit.DirNames(t, dir))
}
