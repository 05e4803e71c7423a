//go:build !linux

package testkit

import "testing"

// SmallFS skips the test: mounting a size-limited tmpfs is Linux's
// (see tmpfs_linux.go).
func SmallFS(t testing.TB, size string) string {
	t.Helper()
	t.Skipf("a %s tmpfs for a full disk needs Linux", size)
	return ""
}
