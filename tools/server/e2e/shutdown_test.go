package e2e_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestServeShutdownCommand: SHUTDOWN through redis-cli syncs the filters
// and the process exits with status 0; a restart finds every add; the
// refusals of bad forms leave it serving.
func TestServeShutdownCommand(t *testing.T) {
	cli := needTool(t, "/usr/bin/redis-cli")
	dir := t.TempDir()
	s := startServe(t, dir, nil, "--appendfsync", "no")
	rdb, c := goRedis(t, s.addr, "")
	items := make([]any, 100)
	for i := range items {
		items[i] = fmt.Sprintf("https://example.com/%d", i)
	}
	require.NoError(t, rdb.BFMAdd(c, "seen", items...).Err())
	require.EqualError(t, rdb.Do(c, "SHUTDOWN", "ABORT").Err(), "ERR No shutdown in progress.")
	require.EqualError(t, rdb.Do(c, "SHUTDOWN", "NOSAVE", "SAVE").Err(), "ERR syntax error")
	out, err := testkit.Command(t, cli, "-p", port(s.addr), "SHUTDOWN").CombinedOutput()
	require.NoError(t, err, string(out))
	waitLog(t, s, "SHUTDOWN received")
	require.NoError(t, s.cmd.Wait(), "exit status 0 after SHUTDOWN")

	s2 := startServe(t, dir, nil)
	rdb2, _ := goRedis(t, s2.addr, "")
	got, err := rdb2.BFMExists(c, "seen", items...).Result()
	require.NoError(t, err)
	for i, ok := range got {
		assert.True(t, ok, "item %d", i)
	}
	require.NoError(t, rdb2.Shutdown(c).Err(), "go-redis takes the closed connection for success, as after redis-server's")
	require.NoError(t, s2.cmd.Wait(), "exit status 0 after go-redis's Shutdown")
}
