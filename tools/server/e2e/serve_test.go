package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// served is a `mmapbloom serve` subprocess.
type served struct {
	cmd   *exec.Cmd
	addr  string
	early []string    // stderr lines before the listening line
	logs  chan string // stderr lines after the listening line
}

// startServe runs `mmapbloom serve --dir dir --addr 127.0.0.1:0 args...`
// as a subprocess and waits for its listening line. The process is
// killed, if still running, when the test ends.
func startServe(t *testing.T, dir string, env []string, args ...string) *served {
	t.Helper()
	return startServeUnder(t, nil, dir, env, args...)
}

// startServeUnder is startServe with the command run under the program
// and arguments of wrap (prlimit ...), if any.
func startServeUnder(t *testing.T, wrap []string, dir string, env []string, args ...string) *served {
	t.Helper()
	argv := append(append(slices.Clone(wrap), binary(t), "serve", "--dir", dir, "--addr", "127.0.0.1:0"), args...)
	cmd := testkit.Process(t, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	s := &served{cmd: cmd, logs: make(chan string, 100)}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, addr, ok := strings.Cut(sc.Text(), "listening on "); ok {
			s.addr, _, _ = strings.Cut(addr, " ")
			break
		}
		s.early = append(s.early, sc.Text())
	}
	require.NotEmpty(t, s.addr, "no listening line; standard error:\n%s", strings.Join(s.early, "\n"))
	go func() {
		for sc.Scan() {
			s.logs <- sc.Text()
		}
		close(s.logs)
	}()
	return s
}

// goRedis returns a go-redis client of addr with timeouts generous for a
// loaded machine (go-redis's default 3 s read timeout fails a long
// pipeline there), and the tests' context.
func goRedis(t *testing.T, addr, password string) (*redis.Client, context.Context) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: password, MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second})
	t.Cleanup(func() { _ = rdb.Close() })
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return rdb, c
}

// TestServeSIGTERM: the server logs one line with its address, serves,
// and on SIGTERM syncs and closes its filters and exits 0.
func TestServeSIGTERM(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, nil)
	require.True(t, strings.HasPrefix(s.addr, "127.0.0.1:"), s.addr)
	rdb, c := goRedis(t, s.addr, "")
	require.True(t, rdb.BFAdd(c, "seen", "https://example.com/").Val())
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, s.cmd.Wait(), "exit status 0")
	f, err := mmapbloom.OpenSet(filepath.Join(dir, "seen.bfset"), &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err, "BF.ADD created a scaling set, as RedisBloom")
	defer f.Close()
	ok, err := f.TestString("https://example.com/")
	require.NoError(t, err)
	assert.True(t, ok)
	n, err := f.Count()
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "count published at close")
}

// TestServePasswordSources: the password from a file and from the
// environment, never on the command line.
func TestServePasswordSources(t *testing.T) {
	dir := t.TempDir()
	pw := testkit.WriteFile(t, t.TempDir(), "pw", []byte("from-file\n"))
	s := startServe(t, dir, nil, "--requirepass-file", pw)
	anon, c := goRedis(t, s.addr, "")
	require.EqualError(t, anon.Ping(c).Err(), "NOAUTH Authentication required.")
	rdb, _ := goRedis(t, s.addr, "from-file")
	require.Equal(t, "PONG", rdb.Ping(c).Val())

	s2 := startServe(t, dir, []string{"MMAPBLOOM_REQUIREPASS=from-env"})
	rdb2, _ := goRedis(t, s2.addr, "from-env")
	require.Equal(t, "PONG", rdb2.Ping(c).Val())
	bad, _ := goRedis(t, s2.addr, "nope")
	require.Error(t, bad.Ping(c).Err())
}

// TestServeCrash: kill -9 the server during a pipeline of adds; after a
// restart every add whose reply the client received tests present.
func TestServeCrash(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, nil)
	rdb, c := goRedis(t, s.addr, "")
	require.NoError(t, rdb.BFReserveNonScaling(c, "crash", 0.001, 1_000_000).Err())

	nc, err := net.Dial("tcp", s.addr)
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.SetDeadline(time.Now().Add(time.Minute)))
	const total = 300_000
	go func() {
		w := bufio.NewWriterSize(nc, 64<<10)
		for i := range total {
			k := fmt.Sprintf("u%d", i)
			fmt.Fprintf(w, "*3\r\n$6\r\nBF.ADD\r\n$5\r\ncrash\r\n$%d\r\n%s\r\n", len(k), k)
		}
		_ = w.Flush()
	}()
	r := bufio.NewReader(nc)
	acked := 0
	for ; ; acked++ {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		require.Contains(t, []string{":1\r\n", ":0\r\n"}, line)
		if acked == 20_000 {
			require.NoError(t, s.cmd.Process.Signal(syscall.SIGKILL))
		}
	}
	_ = s.cmd.Wait()
	t.Logf("%d adds acknowledged before kill -9", acked)
	require.Less(t, acked, total, "killed during the pipeline")

	s2 := startServe(t, dir, nil)
	rdb2, _ := goRedis(t, s2.addr, "")
	for lo := 0; lo < acked; lo += 1000 {
		items := make([]any, 0, 1000)
		for i := lo; i < min(lo+1000, acked); i++ {
			items = append(items, fmt.Sprintf("u%d", i))
		}
		got, err := rdb2.BFMExists(c, "crash", items...).Result()
		require.NoError(t, err)
		for i, ok := range got {
			require.True(t, ok, items[i])
		}
	}
}

// TestServeSharingProcess: another process (`mmapbloom add`, through the
// library) adds to the file while clients add over RESP; no key is
// missing afterwards and BF.CARD equals the header count.
func TestServeSharingProcess(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, nil)
	rdb, c := goRedis(t, s.addr, "")
	require.NoError(t, rdb.BFReserveNonScaling(c, "shared", 0.001, 500_000).Err())
	var local strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&local, "local-%d\n", i)
	}
	keys := testkit.WriteFile(t, t.TempDir(), "keys.txt", []byte(local.String()))
	add := testkit.Command(t, binary(t), "add", filepath.Join(dir, "shared.bloom"), keys)
	var addErr strings.Builder
	add.Stderr = &addErr
	require.NoError(t, add.Start())
	for i := 0; i < 100_000; i += 500 {
		items := make([]any, 500)
		for j := range items {
			items[j] = fmt.Sprintf("remote-%d", i+j)
		}
		require.NoError(t, rdb.BFMAdd(c, "shared", items...).Err())
	}
	require.NoError(t, add.Wait(), addErr.String())

	for _, prefix := range []string{"local-", "remote-"} {
		for i := 0; i < 100_000; i += 1000 {
			items := make([]any, 1000)
			for j := range items {
				items[j] = fmt.Sprintf("%s%d", prefix, i+j)
			}
			got, err := rdb.BFMExists(c, "shared", items...).Result()
			require.NoError(t, err)
			for j, ok := range got {
				require.True(t, ok, items[j])
			}
		}
	}
	card, err := rdb.BFCard(c, "shared").Result()
	require.NoError(t, err)
	f, err := mmapbloom.Open(filepath.Join(dir, "shared.bloom"), &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer f.Close()
	n, err := f.Count()
	require.NoError(t, err)
	assert.EqualValues(t, n, card)
	t.Logf("BF.CARD %d, header count %d, 200000 keys added", card, n)
}
