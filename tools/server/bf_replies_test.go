package server

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyBlock is one block of testdata/redisbloom/replies.txt.
type replyBlock struct {
	source string
	proto  int
	send   [][]string
	want   string
}

// readReplyBlocks parses the golden file of RedisBloom's replies.
func readReplyBlocks(t *testing.T, path string) []replyBlock {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var blocks []replyBlock
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		key, val, _ := strings.Cut(line, ": ")
		switch {
		case strings.HasPrefix(line, "## "):
			blocks = append(blocks, replyBlock{source: line[3:]})
		case key == "proto":
			blocks[len(blocks)-1].proto, err = strconv.Atoi(val)
			require.NoError(t, err, line)
		case key == "send":
			blocks[len(blocks)-1].send = append(blocks[len(blocks)-1].send, strings.Fields(val))
		case key == "want":
			blocks[len(blocks)-1].want, err = strconv.Unquote(val)
			require.NoError(t, err, line)
		}
	}
	require.NoError(t, sc.Err())
	return blocks
}

// respCommand is args as a RESP array of bulk strings.
func respCommand(args ...string) string {
	s := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		s += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	return s
}

// TestRedisBloomReplies sends each block of testdata/redisbloom/
// replies.txt on a new connection (HELLO 3 first for RESP3) and compares
// the reply to its last command, byte for byte, with RedisBloom's. The
// full NONSCALING filter (full3) has a fixed seed (fixSeeds).
func TestRedisBloomReplies(t *testing.T) {
	blocks := readReplyBlocks(t, "testdata/redisbloom/replies.txt")
	require.NotEmpty(t, blocks)
	s, addr := startServer(t, redisBloomDefaults)
	fixSeeds(t, s)
	for _, b := range blocks {
		nc := rawConn(t, addr)
		var req string
		if b.proto == 3 {
			req = respCommand("HELLO", "3")
		}
		for _, args := range b.send {
			req += respCommand(args...)
		}
		_, err := io.WriteString(nc, req+respCommand("QUIT"))
		require.NoError(t, err)
		got, err := io.ReadAll(nc)
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(string(got), b.want+"+OK\r\n"), "%s\nwant %q\ngot  %q", b.source, b.want, got)
	}
}
