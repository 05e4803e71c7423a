package powercut_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit/powercut"
)

// TestCutKeepsWhatWasSynced: after a cut the disk holds each file as its
// last fsync left it: written and synced data stays, later writes,
// extensions and truncations go, a file never synced is empty, and
// pages of a shared mapping count only once msync(MS_SYNC) returned.
func TestCutKeepsWhatWasSynced(t *testing.T) {
	disk := t.TempDir()
	p := powercut.Mount(t, disk)
	write := func(name string, off int64, b string) *os.File {
		f, err := os.OpenFile(filepath.Join(p.Dir, name), os.O_RDWR|os.O_CREATE, 0o644)
		require.NoError(t, err)
		_, err = f.WriteAt([]byte(b), off)
		require.NoError(t, err)
		return f
	}
	synced := write("synced", 0, "durable.")
	require.NoError(t, synced.Sync())
	_, err := synced.WriteAt([]byte("LOST"), 0)
	require.NoError(t, err)
	_, err = synced.WriteAt([]byte(" and longer"), 8)
	require.NoError(t, err)

	shrunk := write("shrunk", 0, "0123456789")
	require.NoError(t, shrunk.Sync())
	require.NoError(t, shrunk.Truncate(3))

	write("never", 0, "never synced")

	mapped := write("mapped", 0, string(make([]byte, 8192)))
	require.NoError(t, mapped.Sync())
	m, err := unix.Mmap(int(mapped.Fd()), 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	require.NoError(t, err)
	copy(m[0:], "msynced")
	require.NoError(t, unix.Msync(m, unix.MS_SYNC))
	copy(m[4096:], "dirty page")

	require.NoError(t, p.Cut())
	_, err = synced.WriteAt([]byte("after"), 0)
	assert.ErrorIs(t, err, syscall.EIO, "no write after the cut")
	require.NoError(t, unix.Munmap(m))
	for _, f := range []*os.File{synced, shrunk, mapped} {
		_ = f.Close()
	}
	require.NoError(t, p.Unmount())

	for name, want := range map[string]string{"synced": "durable.", "shrunk": "0123456789", "never": ""} {
		got, err := os.ReadFile(filepath.Join(disk, name))
		require.NoError(t, err)
		assert.Equal(t, want, string(got), name)
	}
	got, err := os.ReadFile(filepath.Join(disk, "mapped"))
	require.NoError(t, err)
	require.Len(t, got, 8192)
	assert.Equal(t, "msynced", string(got[:7]), "msync(MS_SYNC) is durable")
	assert.Equal(t, make([]byte, 10), got[4096:4106], "a dirty page not synced is lost")
}

// TestFailAnswersEIO: a failing disk answers EIO to writes and fsyncs,
// reads go on, and Heal brings writes back.
func TestFailAnswersEIO(t *testing.T) {
	p := powercut.Mount(t, t.TempDir())
	path := filepath.Join(p.Dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("before"), 0o644))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, p.Fail())
	_, err = f.WriteAt([]byte("x"), 0)
	assert.ErrorIs(t, err, syscall.EIO)
	assert.ErrorIs(t, f.Sync(), syscall.EIO)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "before", string(got))
	require.NoError(t, p.Heal())
	_, err = f.WriteAt([]byte("B"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
}
