package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Testdata names files of the repository's testdata/ directory, which
// are there in a clone.
func TestTestdata(t *testing.T) {
	for _, rel := range []string{"vectors/README.md", "vectors/seed003/urls-n10000-p0.0001-seed0.bin", "phishing-sample.txt.gz"} {
		require.FileExists(t, Testdata(rel))
	}
}

// PoissonLimit gives the quantiles of Poisson tables: P(X > 4) = 0.0037
// and P(X > 5) = 0.00059 for mean 1; P(X > 20) = 0.0016 and
// P(X > 21) = 0.00070 for mean 10. A mean of thousands does not
// underflow.
func TestPoissonLimit(t *testing.T) {
	for _, tt := range []struct {
		mean, tail float64
		want       int
	}{{1, 0.001, 5}, {10, 0.001, 21}, {0, 0.001, 0}, {220, 1e-6, 294}, {5000, 1e-6, 5340}} {
		require.Equal(t, tt.want, PoissonLimit(tt.mean, tt.tail), "mean %g tail %g", tt.mean, tt.tail)
	}
}

// A child still running at its context's deadline is killed, and Wait
// returns: a hung child fails its test instead of holding the test
// binary until go test's -timeout.
func TestCommandKilledAtDeadline(t *testing.T) {
	cmd := commandUntil(t, time.Now().Add(100*time.Millisecond), "sleep", "600")
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, -1, exit.ExitCode(), "killed by a signal")
}

// TestRedisServerNotAnother: a port where another redis-server already
// answers is not taken for the one started (a port found free can be
// won by another test binary's server before redis-server binds it).
func TestRedisServerNotAnother(t *testing.T) {
	other := RedisServer(t, "")
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	assert.False(t, startRedis(t, bin, other, "", nil))
	assert.NotEmpty(t, RedisServer(t, "pw"))
}

// TestFreeAddr: the ports given are below the ephemeral range, differ,
// and one reserved is refused to a second reservation (another test
// process's) until the test that took it ends.
func TestFreeAddr(t *testing.T) {
	a, b := FreeAddr(t), FreeAddr(t)
	assert.NotEqual(t, a, b)
	for _, addr := range []string{a, b} {
		port, err := strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
		require.NoError(t, err)
		assert.GreaterOrEqual(t, port, portsLow)
		assert.Less(t, port, ephemeralLow())
		dir := filepath.Join(os.TempDir(), "mmapbloom-test-ports")
		_, ok := reservePort(t, dir, port)
		assert.False(t, ok, "%s is reserved", addr)
	}
}
