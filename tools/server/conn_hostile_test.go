package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawConn connects to addr with a plain TCP connection and a bounded
// deadline.
func rawConn(t *testing.T, addr string) net.Conn { return rawConnB(t, addr) }

// rawConnB is rawConn for tests and benchmarks.
func rawConnB(t testing.TB, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, nc.SetDeadline(time.Now().Add(30*time.Second)))
	t.Cleanup(func() { _ = nc.Close() })
	return nc
}

// closedAfter reads what the server sends until it closes the connection.
func closedAfter(t *testing.T, nc net.Conn) string {
	t.Helper()
	b, err := io.ReadAll(nc)
	require.NoError(t, err, "the server closes the connection")
	return string(b)
}

// TestMalformedRequests: each malformed request gets a protocol error and
// its connection closed at once, while another client keeps being served.
func TestMalformedRequests(t *testing.T) {
	_, addr := startServer(t, Config{MaxRequest: 1 << 20})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, tc := range []struct{ in, want string }{
		{"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*1\r\n$1099511627776\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*1\r\n$9223372036854775806\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*1\r\n$99999999999999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*2305843009213693952\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"*-0\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"*01\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"*+1\r\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"*0\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"*2\r\n$4\r\nECHO\r\n$01\r\na\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*2\r\n$4\r\nPING\r\n:1\r\n", "-ERR Protocol error: expected '$', got ':'\r\n"},
		{"*1\r\n$4\r\nPINGxx\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"PING \"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
	} {
		nc := rawConn(t, addr)
		_, err := nc.Write([]byte(tc.in))
		require.NoError(t, err)
		assert.Equal(t, tc.want, closedAfter(t, nc), "%q", tc.in)
		require.Equal(t, "PONG", rdb.Ping(c).Val(), "others still served")
	}

	// An unterminated array, then the client goes away.
	nc := rawConn(t, addr)
	_, err := nc.Write([]byte("*3\r\n$6\r\nBF.ADD\r\n$1\r\nk\r\n"))
	require.NoError(t, err)
	require.NoError(t, nc.(*net.TCPConn).CloseWrite())
	assert.Equal(t, "", closedAfter(t, nc))

	// Binary garbage: answered (inline commands) or refused, never fatal.
	for seed := range 20 {
		nc := rawConn(t, addr)
		junk := make([]byte, 4096)
		for i := range junk {
			junk[i] = byte((i*7919 + seed*104729) >> 3)
		}
		_, _ = nc.Write(junk)
		_ = nc.(*net.TCPConn).CloseWrite()
		_, _ = io.ReadAll(nc)
	}
	require.Equal(t, "PONG", rdb.Ping(c).Val())
}

// TestSlowHugeRequest: a client trickling one endless request is cut off
// at MaxRequest with an error; the server's memory stays bounded.
func TestSlowHugeRequest(t *testing.T) {
	_, addr := startServer(t, Config{MaxRequest: 1 << 20})
	rdb, c := dial(t, addr, ""), ctx(t)
	before := rssKiB(t)
	var conns []net.Conn
	for range 8 {
		nc := rawConn(t, addr)
		_, err := nc.Write([]byte("ECHO ")) // an inline command that never ends
		require.NoError(t, err)
		conns = append(conns, nc)
	}
	piece := bytes.Repeat([]byte("a"), 64<<10)
	for round := 0; round < 24; round++ { // 1.5 MiB each, in 64 KiB steps
		for _, nc := range conns {
			_, _ = nc.Write(piece) // fails once the server has closed it
		}
		require.Equal(t, "PONG", rdb.Ping(c).Val())
	}
	for _, nc := range conns {
		// The server answers the error and closes; the client may see the
		// close as a reset, having sent more than the server read.
		got, err := io.ReadAll(nc)
		if err == nil {
			assert.Equal(t, "-ERR Protocol error: too big inline request\r\n", string(got))
		} else {
			assert.ErrorIs(t, err, syscall.ECONNRESET)
		}
	}
	grown := rssKiB(t) - before
	t.Logf("RSS grew by %d KiB with 8 clients sending 1.5 MiB requests (cap 1 MiB)", grown)
	assert.Less(t, grown, int64(64<<10), "RSS growth bounded by clients x 2 x MaxRequest")
}

// TestIdleAndMaxClients: beyond MaxClients a connection is refused with
// Redis's error; idle connections are closed after ClientIdle, freeing
// their slots.
func TestIdleAndMaxClients(t *testing.T) {
	_, addr := startServer(t, Config{MaxClients: 20, ClientIdle: 500 * time.Millisecond})
	var idle []net.Conn
	for range 20 {
		nc := rawConn(t, addr)
		_, err := nc.Write([]byte("PING\r\n"))
		require.NoError(t, err)
		line, err := bufio.NewReader(nc).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "+PONG\r\n", line)
		idle = append(idle, nc)
	}
	extra := rawConn(t, addr)
	assert.Equal(t, "-ERR max number of clients reached\r\n", closedAfter(t, extra))
	for _, nc := range idle {
		assert.Equal(t, "", closedAfter(t, nc), "closed when idle")
	}
	rdb, c := dial(t, addr, ""), ctx(t)
	require.Eventually(t, func() bool { return rdb.Ping(c).Val() == "PONG" }, 10*time.Second, 50*time.Millisecond)
}

// TestTimeoutSet: CONFIG SET timeout applies to a connection from its
// next pipeline, lowered (it idles out) or raised to never (0: it stays
// open past the old idle time).
func TestTimeoutSet(t *testing.T) {
	_, addr := startServer(t, Config{ClientIdle: time.Hour})
	rdb, c := dial(t, addr, ""), ctx(t)
	ping := func(nc net.Conn) {
		_, err := nc.Write([]byte("PING\r\n"))
		require.NoError(t, err)
		line, err := bufio.NewReader(nc).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "+PONG\r\n", line)
	}
	lowered := rawConn(t, addr)
	ping(lowered)
	require.NoError(t, rdb.ConfigSet(c, "timeout", "1").Err())
	ping(lowered)
	assert.Equal(t, "", closedAfter(t, lowered), "closed when idle")

	never := rawConn(t, addr)
	ping(never)
	require.NoError(t, rdb.ConfigSet(c, "timeout", "0").Err())
	ping(never)
	require.NoError(t, never.SetReadDeadline(time.Now().Add(2500*time.Millisecond)))
	_, err := never.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "still open after the old idle time")
	require.NoError(t, never.SetReadDeadline(time.Now().Add(30*time.Second)))
	ping(never)
}

// TestKeysStayInDir: keys that look like paths, hold NUL or are huge
// never touch anything outside the data directory.
func TestKeysStayInDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	require.NoError(t, os.Mkdir(dir, 0o755))
	_, addr := startServer(t, Config{Dir: dir, DefaultCapacity: 100})
	rdb, c := dial(t, addr, ""), ctx(t)
	etc := "/tmp/mmapbloom-i10-probe-" + strconv.Itoa(os.Getpid())
	keys := []string{"../x", "../../x", "/etc/x", etc, "a/../../b", "\x00", "a\x00/../b", ".", "..", "~", strings.Repeat("/..", 20)}
	for _, k := range keys {
		require.NoError(t, rdb.BFAdd(c, k, "v").Err(), "%q", k)
		require.True(t, rdb.BFExists(c, k, "v").Val(), "%q", k)
		require.EqualValues(t, 1, rdb.Exists(c, k).Val())
	}
	long := strings.Repeat("k", 10<<10)
	require.ErrorContains(t, rdb.BFAdd(c, long, "v").Err(), "key too long")
	require.False(t, rdb.BFExists(c, long, "v").Val())
	require.EqualValues(t, 0, rdb.Exists(c, long).Val())

	ents, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, ents, 1, "nothing beside the data directory")
	require.NoFileExists(t, "/etc/x.bloom")
	require.NoFileExists(t, etc+".bloom")
	got, err := rdb.Keys(c, "*").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, keys, got)
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, f := range files {
		assert.False(t, f.IsDir())
		assert.NotContains(t, f.Name(), "/")
	}
	assert.Len(t, files, len(keys))
}

// rssKiB returns this process's resident set size in KiB.
func rssKiB(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kib int64
			_, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kib)
			require.NoError(t, err)
			return kib
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestHostileSizes: forged sizes in every command that takes a size or
// a dump (capacities and error rates implying a huge m, a dumped header
// claiming 2^43 bits, a set's first layer of 2^30 keys at 1e-15: 9 GB files) are
// refused with an error naming the limit; the server's RSS and the data
// directory's disk bytes, measured before and after, stay bounded. The
// data directory is a 64 MiB tmpfs (9bde835 went on to allocate them).
func TestHostileSizes(t *testing.T) {
	dir := testkit.SmallFS(t, "64m")
	_, addr := startServer(t, Config{Dir: dir})
	rdb, c := dial(t, addr, ""), ctx(t)
	rss, disk := rssKiB(t), dirBytes(t, dir)
	const limit = "(--max-filter-bytes)"
	for _, args := range [][]any{
		{"BF.RESERVE", "r1", "1e-15", "1073741824", "NONSCALING"},
		{"BF.RESERVE", "r2", "1e-15", "1073741824"},
		{"BF.RESERVE", "r3", "1e-15", "1073741824", "EXPANSION", "32768"},
		{"BF.INSERT", "i1", "CAPACITY", "1073741824", "ERROR", "1e-15", "NONSCALING", "ITEMS", "x"},
		{"BF.INSERT", "i2", "CAPACITY", "1073741824", "ERROR", "1e-15", "ITEMS", "x"},
		{"MBF.RESERVEWINDOW", "w1", "1e-15", "1073741824", "WINDOW", "60", "KEEP", "4"},
		{"BF.LOADCHUNK", "l1", "1", forgedHeader(t, 1<<43)},
		{"BF.LOADCHUNK", "l2", "1", forgedHeader(t, 1<<50)},
	} {
		err := rdb.Do(c, args...).Err()
		require.Error(t, err, "%v", args[:2])
		assert.Contains(t, err.Error(), limit, "%v", args[:2])
		require.EqualValues(t, 0, rdb.Exists(c, args[1].(string)).Val(), "%v", args[:2])
	}
	grownRSS, grownDisk := rssKiB(t)-rss, dirBytes(t, dir)-disk
	t.Logf("after the forged sizes: RSS +%d KiB, disk +%d bytes", grownRSS, grownDisk)
	assert.Less(t, grownRSS, int64(32<<10), "RSS growth (KiB)")
	assert.Less(t, grownDisk, int64(64<<10), "disk bytes")
}
