package testkit

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// SmallFS mounts a tmpfs of size (mount's size= syntax: "1m", "16m") on
// a new temporary directory and returns it; the mount is detached when
// the test ends. Tests of full disks use it so that they never fill a
// real one. It needs root (CI runs as root): without the permission the
// test is skipped, and under CI=true it fails.
func SmallFS(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: mount a %s tmpfs: %v (CI runs as root)", size, err)
		}
		t.Skipf("mount a %s tmpfs: %v (needs root)", size, err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}
