package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// fullNode is the node whose disk fills (node3), fullFS the size of its
// tmpfs, and fullFor how long its disk stays full under the load once
// its applies fail.
const (
	fullNode = 2
	fullFS   = 256 << 20
	fullFor  = 10 * time.Second
)

// TestNemesisFollowerDiskFull: node3's --dir (its filters and its
// embedded nats-server's store) is on a small tmpfs. Under a nemesis
// load, a file fills it until node3's free space is below its
// --disk-reserve (5% of the file system: even runs), or to the last
// byte (odd runs: the nats-server's writes fail too), so the filters
// the load keeps creating fail to apply there: INFO replication shows
// the streams stopped with their error, and node3 gives its range up
// to a node that applies it. It stays so fullFor under the load, then the file is
// removed: node3 catches up, and every acknowledged add is in its files
// and answers present on every node that serves it (nemesisCheck):
// nothing was skipped.
func TestNemesisFollowerDiskFull(t *testing.T) {
	testkit.Nemesis(t)
	for run := range testkit.Runs(2, 10) { // 10 with MMAPBLOOM_STRESS=1
		t.Run(fmt.Sprint(run), func(t *testing.T) { diskFullRun(t, run) })
	}
}

// diskFullRun is one run of TestNemesisFollowerDiskFull.
func diskFullRun(t *testing.T, run int) {
	r := startReplicated(t)
	onSmallFS(t, r, fullNode)
	l := startNemesisLoad(t, r.client(t, time.Second))
	l.awaitAcks(t, 4_000, "adds acknowledged before the disk fills")

	filler, fault, free := filepath.Join(r.dirs[fullNode], "filler"), "follower-disk-reserve", uint64(fullFS/20/2)
	if run%2 == 1 {
		fault, free = "follower-disk-full", 0
	}
	fillTo(t, filler, r.dirs[fullNode], free)
	info, _ := goRedis(t, r.nodes[fullNode].addr, "")
	var stops []string
	require.Eventually(t, func() bool {
		var err error
		stops, err = stoppedStreams(info)
		return err == nil && len(stops) > 0
	}, 2*time.Minute, 100*time.Millisecond, "node3's applies fail past its disk reserve")
	t.Logf("node3 full: %s", strings.Join(stops, " "))
	time.Sleep(fullFor) // the load goes on; node3 retries
	stops, err := stoppedStreams(info)
	require.NoError(t, err)
	require.NotEmpty(t, stops, "node3 stays stopped while its disk is full")
	require.NoError(t, os.Remove(filler))
	freed := time.Now()

	require.Eventually(t, func() bool {
		stops, err := stoppedStreams(info)
		return err == nil && len(stops) == 0
	}, 2*time.Minute, 100*time.Millisecond,
		"node3 applies again once space is freed")
	t.Logf("node3 applies again %v after the space was freed", time.Since(freed).Round(time.Millisecond))
	l.awaitAcks(t, 4_000, "adds acknowledged after the disk was freed")
	l.end()
	nemesisCheck(t, fault, run, r, []int{0, 1, 2}, l.j.snapshot())
}

// onSmallFS moves node i's directory onto a fullFS tmpfs: the node is
// stopped (SIGTERM), its files are copied there, and it is started
// again on it.
func onSmallFS(t *testing.T, r *replicated, i int) {
	t.Helper()
	dir := testkit.SmallFS(t, fmt.Sprintf("%dm", fullFS>>20))
	require.NoError(t, r.nodes[i].cmd.Process.Signal(syscall.SIGTERM))
	_ = r.nodes[i].cmd.Wait()
	require.NoError(t, os.CopyFS(dir, os.DirFS(r.dirs[i])))
	r.dirs[i] = dir
	r.nodes[i] = r.start(t, i)
}

// fillTo writes the file name on dir's file system until its free
// space is at most free bytes, or the file system is full.
func fillTo(t *testing.T, name, dir string, free uint64) {
	t.Helper()
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	avail := st.Bavail * uint64(st.Bsize)
	require.Greater(t, avail, free, "%s has more than %d bytes free", dir, free)
	t.Logf("filling %s from %d bytes free to %d", dir, avail, free)
	f, err := os.Create(name)
	require.NoError(t, err)
	chunk := make([]byte, 1<<20)
	for left := avail - free; left > 0; {
		n := min(left, uint64(len(chunk)))
		_, err := f.Write(chunk[:n])
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		require.NoError(t, err)
		left -= n
	}
	require.NoError(t, f.Close())
}

// stoppedStreams returns the lines of rdb's INFO replication for the
// streams stopped on its node (stopped= other than 0), each with its
// error=, or the error of INFO.
func stoppedStreams(rdb *redis.Client) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(line, "mbf_log_") && strings.Contains(line, ":applied=") && !strings.Contains(line, ",stopped=0,") {
			out = append(out, line)
		}
	}
	return out, nil
}
