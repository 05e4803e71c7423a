// Package proc holds the library's process-level tests (tests only):
// several processes on one filter or set (multiproc_test.go,
// set_multiproc_test.go), writers and growing sets killed with kill -9
// (crash_test.go, set_multiproc_test.go), the advisory locks between
// processes (lock_test.go), read-only opens by an unprivileged process
// (readonly_test.go) and Sync's durability seen by a plain reader
// (durability_test.go). The helper processes are this test binary re-run
// as its TestHelperProcess (internal/testkit's StartHelper and Role);
// what the tests read of the library's internals goes through
// mmapbloom/internal/testhooks. They run on Linux.
package proc
