package e2e_test

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeSIGHUPStandalone: a standalone server logs SIGHUP and goes on
// serving, as redis-server ignores it (a closed ssh session sends it); the
// adds made before and after are all there after SIGTERM and a restart.
// Before, SIGHUP killed the server with no Sync or Close: 200 acknowledged
// items, BF.CARD 0 after the restart.
func TestServeSIGHUPStandalone(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, nil, "--default-expansion", "0")
	rdb, c := goRedis(t, s.addr, "")
	items := make([]any, 200)
	for i := range items {
		items[i] = fmt.Sprintf("https://example.com/%d", i)
	}
	require.NoError(t, rdb.BFMAdd(c, "seen", items[:100]...).Err())
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
	waitLog(t, s, "SIGHUP received: ignored")
	require.NoError(t, rdb.BFMAdd(c, "seen", items[100:]...).Err(), "still serving after SIGHUP")
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, s.cmd.Wait(), "exit status 0 after SIGTERM")

	s2 := startServe(t, dir, nil)
	rdb2, _ := goRedis(t, s2.addr, "")
	card, err := rdb2.BFCard(c, "seen").Result()
	require.NoError(t, err)
	assert.EqualValues(t, 200, card, "adds acknowledged before and after SIGHUP")
	got, err := rdb2.BFMExists(c, "seen", items...).Result()
	require.NoError(t, err)
	for i, ok := range got {
		require.True(t, ok, "item %d", i)
	}
	assert.FileExists(t, filepath.Join(dir, "seen.bloom"))
}
