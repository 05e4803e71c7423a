package e2e_test

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// TestServeFoldHashtags: --fold-hashtags puts seen:{host} in its
// bucket's set, where a local process finds the item behind its
// length-prefixed tag; the directory then refuses a start without
// folding; --fold-buckets must be a power of two.
func TestServeFoldHashtags(t *testing.T) {
	requireRefused(t, "100 buckets: give a power of two from 1 to 16384",
		"serve", "--dir", t.TempDir(), "--fold-hashtags", "--fold-buckets", "100")

	dir := t.TempDir()
	s := startServe(t, dir, nil, "--fold-hashtags", "--fold-buckets", "16", "--default-capacity", "1000")
	waitLog(t, s, "folding hash-tagged keys into 16 buckets of slots")
	rdb, c := goRedis(t, s.addr, "")
	require.True(t, rdb.BFAdd(c, "seen:{a.example}", "https://a.example/").Val())
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, s.cmd.Wait())

	bucket := cluster.KeySlot([]byte("a.example")) / 1024
	st, err := mmapbloom.OpenSet(filepath.Join(dir, fmt.Sprintf("seen:%%7B%%7D@b%d.bfset", bucket)), &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer st.Close()
	ok, err := st.TestString("\x09a.example" + "https://a.example/")
	require.NoError(t, err)
	assert.True(t, ok, "uvarint(len(tag)) ‖ tag ‖ item")
	ok, err = st.TestString("https://a.example/")
	require.NoError(t, err)
	assert.False(t, ok)

	requireRefused(t, "was served with folding (fold-buckets 16)", "serve", "--dir", dir)
}
