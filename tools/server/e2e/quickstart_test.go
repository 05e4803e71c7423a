package e2e_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
)

// shellBlock returns the first ```sh block after the heading of
// docs/cluster.md.
func shellBlock(t *testing.T, heading string) string {
	t.Helper()
	doc, err := os.ReadFile("../../../docs/cluster.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	require.True(t, ok, "no heading %q in docs/cluster.md", heading)
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok, "no sh block after %q", heading)
	block, _, ok = strings.Cut(block, "```\n")
	require.True(t, ok, "unterminated sh block after %q", heading)
	return block
}

// freePrefix returns a port prefix P such that the ports P1, P2 and P3
// (the prefix and one digit) are free on 127.0.0.1 now, other than
// those of taken.
func freePrefix(t *testing.T, taken ...string) string {
	t.Helper()
	for p := 300; p < 650; p++ { // ports 3001 to 6493
		prefix := fmt.Sprint(p)
		free := !strings.Contains(strings.Join(taken, " "), prefix)
		for i := 1; i <= 3 && free; i++ {
			ln, err := net.Listen("tcp", "127.0.0.1:"+prefix+fmt.Sprint(i))
			if free = err == nil; free {
				require.NoError(t, ln.Close())
			}
		}
		if free {
			return prefix
		}
	}
	t.Fatal("no three free ports")
	return ""
}

// TestClusterQuickStart runs the replicated cluster's quick start of
// docs/cluster.md as written, with bash, the mmapbloom program on PATH,
// and three substitutions so that it runs beside other tests: its
// directories under a temporary one instead of /tmp, and free ports for
// its nodes (7001-7003) and their NATS routes (6201-6203), the same
// digits after another prefix. Its first write is answered 1 (the
// item is new), not CLUSTERDOWN or TRYAGAIN: what it waits for means
// "writes are served".
func TestClusterQuickStart(t *testing.T) {
	natstest.RequireEmbedded(t) // the block's nodes run the embedded nats-server
	needTool(t, "redis-cli", "--version")
	bin := filepath.Join(t.TempDir(), "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.Symlink(binary(t), filepath.Join(bin, "mmapbloom")))
	dir := t.TempDir()
	nodes := freePrefix(t)
	routes := freePrefix(t, nodes)
	script := strings.NewReplacer("/tmp/", dir+"/", "700", nodes, "620", routes).
		Replace(shellBlock(t, "## Replicated cluster: three nodes, embedded NATS JetStream"))

	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	require.NoError(t, err)
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	require.NoError(t, err)
	cmd := testkit.Command(t, "bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the nodes it starts in the background too
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	runErr := cmd.Wait()
	out, err := os.ReadFile(stdout.Name())
	require.NoError(t, err)
	logs, err := os.ReadFile(stderr.Name())
	require.NoError(t, err)
	require.NoError(t, runErr, "the block's script:\n%s\nstdout:\n%s\nstderr:\n%s", script, out, logs)
	lines := strings.Split(string(out), "\n")
	require.GreaterOrEqual(t, len(lines), 2, "stdout:\n%s", out)
	require.Equal(t, []string{"1", "2"}, lines[:2], "BF.ADD's reply (the first write), then WAIT's\nstdout:\n%s\nstderr:\n%s", out, logs)
}
