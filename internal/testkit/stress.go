package testkit

import (
	"os"
	"testing"
)

// Runs returns how many runs a repeated test makes: normal, or stressed
// when the environment has MMAPBLOOM_STRESS=1 (the long loops kept out
// of CI).
func Runs(normal, stressed int) int {
	if Stress() {
		return stressed
	}
	return normal
}

// Stress reports whether the long rounds were asked for
// (MMAPBLOOM_STRESS=1): the default run does fewer, smaller rounds of
// the same checks, and leaves out measurements of peers that only cost
// time.
func Stress() bool { return os.Getenv("MMAPBLOOM_STRESS") == "1" }

// Nemesis skips t unless the nemesis suite was asked for: its fault tests
// (kill -9, SIGSTOP, power cuts, full disks, partitions, damaged stores;
// docs/cluster.md, "Nemesis suite") take minutes, so they run with
// MMAPBLOOM_NEMESIS=1 (two runs of each fault, CI's nemesis step) or
// MMAPBLOOM_STRESS=1 (ten runs), and the README's test command leaves
// them out.
func Nemesis(t testing.TB) {
	t.Helper()
	if os.Getenv("MMAPBLOOM_NEMESIS") != "1" && !Stress() {
		t.Skip("a nemesis test (docs/cluster.md, \"Nemesis suite\"): MMAPBLOOM_NEMESIS=1 runs it")
	}
}
