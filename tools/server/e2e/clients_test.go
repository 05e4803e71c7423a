package e2e_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// needTool returns the path of a real client program. With CI=true a
// missing one fails the test; elsewhere the test is skipped.
func needTool(t *testing.T, path string, check ...string) string {
	t.Helper()
	p, err := exec.LookPath(path)
	if err == nil && len(check) > 0 {
		err = testkit.Command(t, p, check...).Run()
	}
	if err != nil {
		msg := fmt.Sprintf("%s not usable (%v): apt-get install redis-tools python3-redis", path, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

func port(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }

// TestRedisCLITranscript runs testdata/serve/*.redis through redis-cli
// (one command a line, replies typed with --no-raw; *.resp3.redis with
// -3, in RESP3) and compares the output with the .golden file beside it
// (-update rewrites it).
func TestRedisCLITranscript(t *testing.T) {
	cli := needTool(t, "redis-cli", "--version")
	scripts, err := filepath.Glob("testdata/serve/*.redis")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	for _, script := range scripts {
		t.Run(filepath.Base(script), func(t *testing.T) {
			s := startServe(t, t.TempDir(), nil)
			in, err := os.ReadFile(script)
			require.NoError(t, err)
			args := []string{"-h", "127.0.0.1", "-p", port(s.addr), "--no-raw"}
			if strings.HasSuffix(script, ".resp3.redis") {
				args = append(args, "-3")
			}
			cmd := testkit.Command(t, cli, args...)
			cmd.Stdin = bytes.NewReader(in)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			testkit.Golden(t, strings.TrimSuffix(script, ".redis")+".golden", string(out), *updateGolden)
		})
	}
}

// TestRedisCLIPipe loads BF.ADD of the 50,000 URLs of the phishing sample
// with redis-cli --pipe (raw RESP), then checks them with BF.MEXISTS.
func TestRedisCLIPipe(t *testing.T) {
	cli := needTool(t, "redis-cli", "--version")
	urls := sampleURLs(t)
	require.Len(t, urls, 50_000)
	var proto bytes.Buffer
	for _, u := range urls {
		fmt.Fprintf(&proto, "*3\r\n$6\r\nBF.ADD\r\n$8\r\nphishing\r\n$%d\r\n%s\r\n", len(u), u)
	}
	s := startServe(t, t.TempDir(), nil)
	cmd := testkit.Command(t, cli, "-h", "127.0.0.1", "-p", port(s.addr), "--pipe")
	cmd.Stdin = &proto
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "errors: 0, replies: 50000")

	rdb, c := goRedis(t, s.addr, "")
	for lo := 0; lo < len(urls); lo += 5000 {
		items := make([]any, 0, 5000)
		for _, u := range urls[lo:min(lo+5000, len(urls))] {
			items = append(items, u)
		}
		got, err := rdb.BFMExists(c, "phishing", items...).Result()
		require.NoError(t, err)
		for i, ok := range got {
			require.True(t, ok, items[i])
		}
	}
}

// sampleURLs reads testdata/phishing-sample.txt.gz of the repository.
func sampleURLs(t *testing.T) []string {
	f, err := os.Open(testkit.Testdata("phishing-sample.txt.gz"))
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestRedisPy runs testdata/serve/redis_py_check.py with Debian's python3
// and redis-py: r.bf() helpers, BF.INFO fields, SCANDUMP/LOADCHUNK, a
// Scrapy-style request_seen, a pipeline.
func TestRedisPy(t *testing.T) {
	py := needTool(t, "/usr/bin/python3", "-c", "import redis")
	s := startServe(t, t.TempDir(), nil)
	out, err := testkit.Command(t, py, "testdata/serve/redis_py_check.py", port(s.addr)).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "ok\n", string(out))
}

// TestRedisBenchmark: redis-benchmark (which sends CONFIG GET first)
// drives BF.ADD and BF.EXISTS with random keys, pipelined, bounded; every
// request is answered.
func TestRedisBenchmark(t *testing.T) {
	bench := needTool(t, "redis-benchmark", "--version")
	s := startServe(t, t.TempDir(), nil)
	for _, cmd := range []string{"BF.ADD", "BF.EXISTS"} {
		out, err := testkit.Command(t, bench, "-h", "127.0.0.1", "-p", port(s.addr), "-n", "20000", "-c", "8", "-P", "16",
			"-r", "1000000", "--csv", cmd, "seen", "__rand_int__").CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Contains(t, string(out), `"`+cmd+` seen __rand_int__",`)
		assert.NotContains(t, string(out), "ERR")
	}
}

// TestRedisPyKeys runs testdata/serve/redis_py_keys.py: redis-py's
// rename, renamenx, memory_usage, flushdb and flushall, and MBF.MERGE.
func TestRedisPyKeys(t *testing.T) {
	py := needTool(t, "/usr/bin/python3", "-c", "import redis")
	s := startServe(t, t.TempDir(), nil)
	out, err := testkit.Command(t, py, "testdata/serve/redis_py_keys.py", port(s.addr)).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "ok\n", string(out))
}
