//go:build !(linux && (amd64 || arm64))

package powercut

import (
	"errors"
	"testing"
)

// ErrCut is returned by Cut and Unmount when restoring the directory
// underneath failed.
var ErrCut = errors.New("powercut")

// FS is a mounted filesystem that can lose power (Linux only).
type FS struct{ Dir, Disk string }

// Mount skips the test: the FUSE passthrough needs Linux on a 64-bit
// platform (go-fuse does not build for 386).
func Mount(t testing.TB, disk string) *FS {
	t.Helper()
	t.Skip("powercut: the FUSE passthrough needs Linux on amd64 or arm64")
	return nil
}

// Fail is Linux's (nil here).
func (p *FS) Fail() error { return nil }

// Heal is Linux's.
func (p *FS) Heal() error { return nil }

// Cut is Linux's.
func (p *FS) Cut() error { return nil }

// Unmount is Linux's.
func (p *FS) Unmount() error { return nil }
