package e2e_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// needPrlimit returns the argv prefix running a program with
// RLIMIT_NOFILE lowered to n (util-linux's prlimit).
func needPrlimit(t *testing.T, n int) []string {
	return []string{needTool(t, "prlimit", "--version"), fmt.Sprintf("--nofile=%d:%d", n, n), "--"}
}

// TestServeLowDescriptorLimit: under RLIMIT_NOFILE 256 the server lowers
// --maxclients (10000) to fit, says so in its log, and of 10,000 idle
// connections each is answered (PING) or refused with Redis's error,
// while a client connected before adds to 200 new keys (more filter
// files than the descriptors left for them) without an error.
func TestServeLowDescriptorLimit(t *testing.T) {
	s := startServeUnder(t, needPrlimit(t, 256), t.TempDir(), nil, "--default-expansion", "0", "--default-capacity", "1000")
	assert.Contains(t, strings.Join(s.early, "\n"), "maxclients reduced to 168 and filter files to 56")
	rdb, c := goRedis(t, s.addr, "")
	rdb.Options().PoolSize = 1
	require.NoError(t, rdb.Ping(c).Err())

	const idle = 10000
	replies := make([]string, idle)
	conns := make([]net.Conn, idle)
	var wg sync.WaitGroup
	for w := range 20 {
		wg.Go(func() {
			for i := w; i < idle; i += 20 {
				replies[i], conns[i] = idleClient(s.addr)
			}
		})
	}
	wg.Wait()
	defer func() {
		for _, nc := range conns {
			if nc != nil {
				_ = nc.Close()
			}
		}
	}()
	counts := map[string]int{}
	for _, r := range replies {
		counts[r]++
	}
	t.Logf("10,000 idle clients under RLIMIT_NOFILE 256: %v", counts)
	assert.Equal(t, idle, counts["+PONG"]+counts["-ERR max number of clients reached"], "every client answered or refused: %v", counts)
	assert.Equal(t, 167, counts["+PONG"], "maxclients 168, one of them the first client")

	for i := range 200 {
		require.NoError(t, rdb.BFAdd(c, fmt.Sprintf("k%d", i), "v").Err(), "key %d", i)
	}
	for i := range 200 {
		require.True(t, rdb.BFExists(c, fmt.Sprintf("k%d", i), "v").Val(), "key %d", i)
	}
}

// idleClient connects to addr, sends PING and returns the first reply
// line (or the error), keeping the connection open.
func idleClient(addr string) (string, net.Conn) {
	nc, err := net.DialTimeout("tcp", addr, time.Minute)
	if err != nil {
		return "dial: " + err.Error(), nil
	}
	_ = nc.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := nc.Write([]byte("PING\r\n")); err != nil {
		return "write: " + err.Error(), nc
	}
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		return "read: " + err.Error(), nc
	}
	return strings.TrimSuffix(line, "\r\n"), nc
}

// TestServeKilledLoadRemoved: a BF.LOADCHUNK abandoned midway by a
// server killed with kill -9 leaves its temporary file; the next start
// removes it (and says so), and the key was never published.
func TestServeKilledLoadRemoved(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, nil)
	rdb, c := goRedis(t, s.addr, "")
	src := filepath.Join(t.TempDir(), "src.bloom")
	out, err := testkit.Command(t, binary(t), "create", src, "-n", "100000", "-p", "0.01").CombinedOutput()
	require.NoError(t, err, "%s", out)
	dump, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, rdb.BFLoadChunk(c, "k", 1, dump[:64]).Err())
	require.NoError(t, rdb.BFLoadChunk(c, "k", 1+1000, dump[64:64+1000]).Err())
	temps, err := filepath.Glob(filepath.Join(dir, ".k.bloom.load*"))
	require.NoError(t, err)
	require.Len(t, temps, 1, "the load's temporary file")
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGKILL))
	_ = s.cmd.Wait()

	s = startServe(t, dir, nil)
	assert.Contains(t, strings.Join(s.early, "\n"), "removed 1 temporary files of loads interrupted by a crash")
	assert.NoFileExists(t, temps[0])
	rdb, c = goRedis(t, s.addr, "")
	assert.EqualValues(t, 0, rdb.Exists(c, "k").Val())
	assert.EqualError(t, rdb.BFLoadChunk(c, "k", 1+2000, dump[64+1000:64+2000]).Err(), "ERR not found")
}
