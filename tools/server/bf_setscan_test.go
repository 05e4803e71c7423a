package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// setDumpRequest is the --max-request of the servers of these tests:
// a set's dump comes in many chunks, each within it.
const setDumpRequest = 32 << 10

// setDumpServers starts a source and a receiver with --max-request
// setDumpRequest on one injected clock; advance moves it.
func setDumpServers(t *testing.T) (src, dst *redis.Client, dstDir string, advance func(time.Duration)) {
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	_, a1 := startServer(t, Config{MaxRequest: setDumpRequest, Sets: store.LibrarySets{Now: clock}})
	s2, a2 := startServer(t, Config{MaxRequest: setDumpRequest, Sets: store.LibrarySets{Now: clock}})
	return dial(t, a1, ""), dial(t, a2, ""), s2.cfg.Dir, func(d time.Duration) { now.Add(int64(d)) }
}

// scanDump returns the chunks of BF.SCANDUMP key, [iterator, data] as
// BF.LOADCHUNK takes them, until the reply with iterator 0.
func scanDump(t *testing.T, rdb *redis.Client, key string) []redis.ScanDump {
	var chunks []redis.ScanDump
	for it := int64(0); len(chunks) < 10_000; {
		d, err := rdb.BFScanDump(ctx(t), key, it).Result()
		require.NoError(t, err)
		if d.Iter == 0 {
			assert.Empty(t, d.Data)
			return chunks
		}
		require.LessOrEqual(t, len(d.Data), setDumpRequest-chunkRoom, "a chunk fits the receiver's --max-request")
		chunks = append(chunks, d)
		it = d.Iter
	}
	t.Fatal("dump did not end")
	return nil
}

// TestSetScanDumpRoundTrip dumps a scaling set of several layers and a
// windowed set into fresh keys of a second server: the copies answer
// BF.MEXISTS alike for 10,000 keys present and 10,000 absent, and
// BF.INFO alike.
func TestSetScanDumpRoundTrip(t *testing.T) {
	src, dst, _, advance := setDumpServers(t)
	c := ctx(t)
	require.NoError(t, src.BFReserveExpansion(c, "grow", 0.01, 1000, 2).Err())
	require.Equal(t, "OK", src.Do(c, "MBF.RESERVEWINDOW", "win", "0.01", "5000", "WINDOW", "60", "KEEP", "3").Val())
	present, absent := make([]any, 10_000), make([]any, 10_000)
	for i := range present {
		present[i], absent[i] = fmt.Sprintf("in-%d", i), fmt.Sprintf("out-%d", i)
	}
	madd(t, src, "grow", present)
	for w := range 3 { // the window set gets a layer a window
		madd(t, src, "win", present[w*3000:(w+1)*3000])
		advance(time.Minute)
	}
	madd(t, src, "win", present[9000:])
	require.Equal(t, []any{int64(4)}, src.Do(c, "BF.INFO", "grow", "FILTERS").Val(), "layers of the scaling set")
	require.Equal(t, []any{int64(3)}, src.Do(c, "BF.INFO", "win", "FILTERS").Val(), "layers of the windowed set")

	for _, key := range []string{"grow", "win"} {
		chunks := scanDump(t, src, key)
		require.Greater(t, len(chunks), 3, key+": the head chunk, then at least a piece a layer")
		for _, d := range chunks {
			require.NoError(t, dst.BFLoadChunk(c, key+"-copy", d.Iter, d.Data).Err(), key)
		}
		for _, items := range [][]any{present, absent} {
			require.Equal(t, mexists(t, src, key, items), mexists(t, dst, key+"-copy", items), key)
		}
		assert.Equal(t, src.Do(c, "BF.INFO", key).Val(), dst.Do(c, "BF.INFO", key+"-copy").Val(), key)
		assert.Equal(t, src.BFCard(c, key).Val(), dst.BFCard(c, key+"-copy").Val(), key)
	}
	assert.NotContains(t, mexists(t, dst, "grow-copy", present), false, "every key added is present")
}

// TestSetLoadChunkForged refuses forged set chunks with RedisBloom's
// errors or the server's limits, and leaves no file.
func TestSetLoadChunkForged(t *testing.T) {
	src, dst, dir, _ := setDumpServers(t)
	c := ctx(t)
	require.NoError(t, src.BFReserveExpansion(c, "grow", 0.01, 1000, 2).Err())
	items := make([]any, 4000)
	for i := range items {
		items[i] = fmt.Sprintf("in-%d", i)
	}
	madd(t, src, "grow", items)
	chunks := scanDump(t, src, "grow")
	head, err := decodeSetHead([]byte(chunks[0].Data))
	require.NoError(t, err)

	huge := head.layers[0].hdr
	huge.M = 1 << 45
	huge.ByteSize = format.ByteSize(huge.Version, huge.M)
	hugeHead := forgeSetHead(t, head, huge)
	load := func(it int64, data string) error { return dst.BFLoadChunk(c, "copy", it, data).Err() }
	head0 := chunks[0]
	for _, tc := range []struct {
		name  string
		steps []redis.ScanDump // the last one is refused
		err   string
	}{
		{"truncated head", []redis.ScanDump{{Iter: head0.Iter, Data: head0.Data[:len(head0.Data)-10]}}, msgBadData},
		{"head with a byte more", []redis.ScanDump{{Iter: head0.Iter, Data: head0.Data + "x"}}, msgBadData},
		{"huge layer", []redis.ScanDump{{Iter: head0.Iter, Data: hugeHead}}, "--max-filter-bytes"},
		{"piece without head", chunks[1:2], "ERR not found"},
		{"second piece first", []redis.ScanDump{head0, chunks[2]}, msgBadData},
		{"truncated piece", []redis.ScanDump{head0, {Iter: chunks[1].Iter, Data: chunks[1].Data[:100]}}, msgBadData},
		{"piece of the next layer", []redis.ScanDump{head0, chunks[len(chunks)-1]}, msgBadData},
		{"piece twice", []redis.ScanDump{head0, chunks[1], chunks[1]}, msgBadData},
	} {
		for i, d := range tc.steps {
			err := load(d.Iter, d.Data)
			if i < len(tc.steps)-1 {
				require.NoError(t, err, tc.name)
				continue
			}
			require.ErrorContains(t, err, tc.err, tc.name)
		}
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, ents, tc.name+": no file left")
		assert.Zero(t, dst.Exists(c, "copy").Val(), tc.name)
	}

	// The whole dump still loads after the refusals, and not again.
	for _, d := range chunks {
		require.NoError(t, load(d.Iter, d.Data))
	}
	assert.DirExists(t, filepath.Join(dir, "copy.bfset"))
	require.EqualError(t, load(head0.Iter, head0.Data), msgBadData, "into a key that exists")
}

// forgeSetHead re-encodes head with its first layer's header replaced
// by h.
func forgeSetHead(t *testing.T, head *setHead, h format.Header) string {
	names, hdrs := make([]string, len(head.layers)), make([][]byte, len(head.layers))
	for i, l := range head.layers {
		names[i], hdrs[i] = l.name, l.raw
	}
	hdrs[0] = make([]byte, format.HeaderSize)
	require.NoError(t, h.Encode(hdrs[0]))
	b, err := encodeSetHead(head.manifest, names, hdrs)
	require.NoError(t, err)
	return string(b)
}

// madd adds items to key by BF.MADDs of 1,000 (each within
// setDumpRequest).
func madd(t *testing.T, rdb *redis.Client, key string, items []any) {
	for i := 0; i < len(items); i += 1000 {
		require.NoError(t, rdb.BFMAdd(ctx(t), key, items[i:min(i+1000, len(items))]...).Err())
	}
}

// mexists is BF.MEXISTS of items in key by 1,000 at a time.
func mexists(t *testing.T, rdb *redis.Client, key string, items []any) []bool {
	var got []bool
	for i := 0; i < len(items); i += 1000 {
		r, err := rdb.BFMExists(ctx(t), key, items[i:min(i+1000, len(items))]...).Result()
		require.NoError(t, err)
		got = append(got, r...)
	}
	return got
}

// TestSetLoadStaleDir: a set load's or a set pull's hidden directory
// left by a killed server is removed at the next start; a live load's
// is not.
func TestSetLoadStaleDir(t *testing.T) {
	src, dst, dir, _ := setDumpServers(t)
	c := ctx(t)
	require.NoError(t, src.BFReserveExpansion(c, "grow", 0.01, 1000, 2).Err())
	chunks := scanDump(t, src, "grow")
	require.NoError(t, dst.BFLoadChunk(c, "copy", chunks[0].Iter, chunks[0].Data).Err())
	live, err := filepath.Glob(filepath.Join(dir, ".copy.bfset.load*"))
	require.NoError(t, err)
	require.Len(t, live, 1, "the load's directory")
	n, err := store.RemoveStaleLoads(dir)
	require.NoError(t, err)
	assert.Zero(t, n, "a live load is kept")
	require.DirExists(t, live[0])

	stale := t.TempDir()
	var left []string
	for _, name := range []string{".k.bfset.load123", ".k.bfset.pull456"} {
		d := filepath.Join(stale, name)
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "L000000.bloom"), []byte("x"), 0o644))
		left = append(left, d)
	}
	startServer(t, Config{Dir: stale})
	for _, d := range left {
		require.NoDirExists(t, d)
	}
}

// TestSetScanDumpLayerDropped: an iterator whose layer a window dropped
// during the dump is refused (a dump must start again), never answered
// with another layer's bits.
func TestSetScanDumpLayerDropped(t *testing.T) {
	src, _, _, advance := setDumpServers(t)
	c := ctx(t)
	require.Equal(t, "OK", src.Do(c, "MBF.RESERVEWINDOW", "win", "0.01", "1000", "WINDOW", "60", "KEEP", "2").Val())
	require.NoError(t, src.BFAdd(c, "win", "a").Err())
	head, err := src.BFScanDump(c, "win", 0).Result()
	require.NoError(t, err)
	advance(5 * time.Minute)
	require.NoError(t, src.BFAdd(c, "win", "b").Err()) // a new window: the old layer goes
	require.Equal(t, []any{int64(1)}, src.Do(c, "BF.INFO", "win", "FILTERS").Val())
	require.EqualError(t, src.BFScanDump(c, "win", head.Iter).Err(), "ERR "+errSetChanged.Error())
}
