package e2e_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestNemesisRestartTwo: under a nemesis load (pipelined go-redis adds
// through a ClusterClient), two of the three nodes, chosen at random,
// are stopped at once (kill -9 in even runs, SIGTERM in odd ones: the
// log loses its quorum, so every write fails meanwhile) and restarted
// on their directories; the load goes on, and every acknowledged add
// answers present on every node that serves it and is in every node's
// files (nemesisCheck).
func TestNemesisRestartTwo(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		sig, fault := os.Signal(syscall.SIGKILL), "restart2-kill9"
		if run%2 == 1 {
			sig, fault = syscall.SIGTERM, "restart2-sigterm"
		}
		t.Run(fmt.Sprint(run), func(t *testing.T) { restartTwoRun(t, run, sig, fault) })
	}
}

// restartTwoRun is one run of TestNemesisRestartTwo, stopping the
// nodes with sig.
func restartTwoRun(t *testing.T, run int, sig os.Signal, fault string) {
	r := startReplicated(t)
	l := startNemesisLoad(t, r.client(t, time.Second))
	l.awaitAcks(t, int64(2_000+rand.IntN(8_000)), "adds acknowledged before the fault")
	survivor := rand.IntN(len(r.nodes))
	for i, n := range r.nodes {
		if i != survivor {
			require.NoError(t, n.cmd.Process.Signal(sig))
		}
	}
	for i, n := range r.nodes {
		if i != survivor {
			_ = n.cmd.Wait()
		}
	}
	stopped := time.Now()
	for i := range r.nodes {
		if i != survivor {
			r.nodes[i] = r.start(t, i)
		}
	}
	t.Logf("node%d alone for %v; the others restarted", survivor+1, time.Since(stopped).Round(time.Millisecond))
	l.awaitAcks(t, 10_000, "adds acknowledged again after the restart")
	l.end()
	nemesisCheck(t, fault, run, r, []int{0, 1, 2}, l.j.snapshot())
}
