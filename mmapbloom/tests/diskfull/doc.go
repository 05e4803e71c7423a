// Package diskfull holds the library's tests on full disks (tests only):
// small tmpfs mounts filled up under Create, Add, Sync and a Builder
// (diskfull_test.go, build_diskfull_test.go), and a file's blocks
// reserved against a filesystem that runs out of space
// (diskspace_test.go). TestDiskFull and TestDiskSpace mount in a helper
// process with a mount namespace of its own (internal/testkit's
// StartHelper and Role), TestBuildDiskFull with internal/testkit's
// SmallFS; they need root and skip without it (TestBuildDiskFull and
// TestDiskSpace fail instead under CI=true). They run on Linux.
package diskfull
