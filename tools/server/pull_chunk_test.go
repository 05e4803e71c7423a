package server

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A puller asks for dump pieces within its own request limit: the
// CHUNKSIZE argument of BF.SCANDUMP, MBF.SETDUMP and MBF.BUCKETDUMP.

// bigFilterItems adds n items to key through rdb and returns them.
func bigFilterItems(t *testing.T, rdb *redis.Client, key string, n int) []any {
	t.Helper()
	items := make([]any, n)
	for i := range items {
		items[i] = fmt.Sprintf("https://example.com/%s/%d", key, i)
	}
	require.NoError(t, rdb.BFMAdd(ctx(t), key, items...).Err())
	return items
}

// TestScanDumpChunkSize: a client copying a 5.4 MB filter from a server
// with the default --max-request (4 MiB pieces) to one started with
// --max-request 1 MiB asks for pieces that fit the loader's limit
// (CHUNKSIZE); RedisBloom's BF.SCANDUMP key iterator keeps its meaning,
// and a bad CHUNKSIZE is refused.
func TestScanDumpChunkSize(t *testing.T) {
	_, a1 := startServer(t, Config{})
	_, a2 := startServer(t, Config{MaxRequest: 1 << 20})
	src, dst, c := dial(t, a1, ""), dial(t, a2, ""), ctx(t)
	require.NoError(t, src.BFReserveNonScaling(c, "big", 0.001, 3_000_000).Err())
	items := bigFilterItems(t, src, "big", 1000)
	piece := int64(1<<20 - chunkRoom)
	chunks := 0
	for it := int64(0); ; chunks++ {
		v, err := src.Do(c, "BF.SCANDUMP", "big", it, "CHUNKSIZE", piece).Slice()
		require.NoError(t, err, "BF.SCANDUMP with CHUNKSIZE")
		next, data := v[0].(int64), v[1].(string)
		if next == 0 {
			break
		}
		require.LessOrEqual(t, int64(len(data)), piece)
		require.NoError(t, dst.BFLoadChunk(c, "copy", next, data).Err(), "chunk %d", chunks)
		it = next
	}
	assert.Greater(t, chunks, 5)
	for _, it := range dst.BFMExists(c, "copy", items...).Val() {
		require.True(t, it)
	}
	d, err := src.BFScanDump(c, "big", 1).Result()
	require.NoError(t, err)
	assert.Len(t, d.Data, 4<<20, "without CHUNKSIZE: RedisBloom's 4 MiB pieces")
	for _, bad := range [][]any{{"CHUNKSIZE", 0}, {"CHUNKSIZE", "x"}, {"CHUNKSIZE"}, {"SIZE", 10}, {"CHUNKSIZE", 10, "x"}} {
		err := src.Do(c, append([]any{"BF.SCANDUMP", "big", 1}, bad...)...).Err()
		assert.EqualError(t, err, errChunkArg.Error(), "%v", bad)
	}
}

// pieceHook records the largest dump piece a client received.
type pieceHook struct{ max atomic.Int64 }

func (h *pieceHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *pieceHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(c context.Context, cmd redis.Cmder) error {
		err := next(c, cmd)
		h.note(cmd)
		return err
	}
}

func (h *pieceHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(c context.Context, cmds []redis.Cmder) error {
		err := next(c, cmds)
		for _, cmd := range cmds {
			h.note(cmd)
		}
		return err
	}
}

func (h *pieceHook) note(cmd redis.Cmder) {
	c, ok := cmd.(*redis.Cmd)
	if !ok {
		return
	}
	if v, err := c.Slice(); err == nil && len(v) == 2 {
		if piece, ok := v[1].(string); ok && int64(len(piece)) > h.max.Load() {
			h.max.Store(int64(len(piece)))
		}
	}
}

// TestPullChunksWithinOwnLimit: a replica started with --max-request
// 1 MiB pulls, from a primary with the default limit (4 MiB pieces), a
// 5.4 MB fixed filter and a scaling set with a 5.4 MB layer: every
// piece it receives fits its own limit, and every item arrives.
func TestPullChunksWithinOwnLimit(t *testing.T) {
	tc := startCluster(t, primaryAndReplica, func(c *Config) {
		if c.NodeID == "node2" {
			c.MaxRequest = 1 << 20
		}
	})
	p, plain, r, c := dial(t, tc.addrs[0], ""), dial(t, tc.addrs[1], ""), readOnlyClient(t, tc.addrs[1]), ctx(t)
	require.NoError(t, plain.Do(c, "MBF.PULL").Err()) // connects the puller
	hook := &pieceHook{}
	pl := tc.srvs[1].puller
	pl.mu.Lock()
	pl.rdb.AddHook(hook)
	pl.mu.Unlock()

	require.NoError(t, p.BFReserveNonScaling(c, "big", 0.001, 3_000_000).Err())
	require.NoError(t, p.BFReserve(c, "bigset", 0.001, 3_000_000).Err())
	fixed, set := bigFilterItems(t, p, "big", 1000), bigFilterItems(t, p, "bigset", 1000)
	for round := range 2 { // a copy, then an OR in place
		require.NoError(t, plain.Do(c, "MBF.PULL").Err(), "round %d", round)
		assert.Positive(t, hook.max.Load())
		assert.LessOrEqual(t, hook.max.Load(), int64(1<<20-chunkRoom), "round %d: a piece larger than the replica's limit", round)
		for key, items := range map[string][]any{"big": fixed, "bigset": set} {
			for i, ok := range r.BFMExists(c, key, items...).Val() {
				require.True(t, ok, "%s %v", key, items[i])
			}
		}
		require.NoError(t, p.BFAdd(c, "big", "later").Err())
		require.NoError(t, p.BFAdd(c, "bigset", "later").Err())
		fixed, set = append(fixed, "later"), append(set, "later")
	}
}
