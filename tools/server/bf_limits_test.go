package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// forgedHeader returns a valid v2 classic header claiming m bits.
func forgedHeader(t *testing.T, m uint64) []byte {
	t.Helper()
	h := format.Header{Version: format.V2, Layout: format.LayoutClassic, Scheme: format.SchemeXXH3Remix,
		K: 7, M: m, N: m / 10, P: 0.01, ByteSize: format.ByteSize(format.V2, m)}
	b := make([]byte, format.HeaderSize)
	require.NoError(t, h.Encode(b))
	return b
}

// dirBytes returns the disk blocks allocated to the files of dir, in
// bytes.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	require.NoError(t, filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil {
			total += fi.Sys().(*syscall.Stat_t).Blocks * 512
		}
		return err
	}))
	return total
}

// TestForgedDumpRefused: a dumped header claiming m = 2^43 (a 1 TiB
// file) is refused before anything is allocated, naming the limit; a
// load whose last piece comes first is refused and never published.
func TestForgedDumpRefused(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, Config{Dir: dir})
	rdb, c := dial(t, addr, ""), ctx(t)
	before := dirBytes(t, dir)

	err := rdb.BFLoadChunk(c, "k", 1, forgedHeader(t, 1<<43)).Err()
	require.ErrorContains(t, err, "larger than the limit of 4294967296 bytes per filter (--max-filter-bytes)")
	require.EqualError(t, rdb.BFLoadChunk(c, "k", 1+1<<40, "x").Err(), "ERR not found")
	require.EqualValues(t, 0, rdb.Exists(c, "k").Val())

	// A header within the limits, then only its last byte: not published.
	const size = 1 << 20
	require.NoError(t, rdb.BFLoadChunk(c, "k", 1, forgedHeader(t, 8*size)).Err())
	err = rdb.BFLoadChunk(c, "k", 1+size, "x").Err()
	require.EqualError(t, err, msgBadData)
	require.EqualValues(t, 0, rdb.Exists(c, "k").Val())
	require.NoFileExists(t, filepath.Join(dir, "k.bloom"))
	assert.Less(t, dirBytes(t, dir)-before, int64(64<<10), "disk bytes taken by the forged loads")
}

// TestDiskReserve: on a 16 MiB file system with 4 MiB kept free, a
// create, a load and a growth that would leave less are refused with
// the limit's name, and what fits is served.
func TestDiskReserve(t *testing.T) {
	dir := testkit.SmallFS(t, "16m")
	_, addr := startServer(t, Config{Dir: dir, Limits: store.Limits{DiskReserve: 4 << 20}})
	rdb, c := dial(t, addr, ""), ctx(t)
	const msg = "must stay free (--disk-reserve)"

	require.ErrorContains(t, rdb.BFReserveNonScaling(c, "big", 0.01, 12_000_000).Err(), msg) // 14 MB
	require.ErrorContains(t, rdb.BFLoadChunk(c, "load", 1, forgedHeader(t, 8*13<<20)).Err(), msg)
	require.NoError(t, rdb.BFReserveNonScaling(c, "fits", 0.01, 4_000_000).Err()) // 4.8 MB
	// Two loads of 4 MiB: the second would leave less than the reserve
	// once the first is complete, and is refused before it starts.
	require.NoError(t, rdb.BFLoadChunk(c, "l1", 1, forgedHeader(t, 8*4<<20)).Err())
	require.ErrorContains(t, rdb.BFLoadChunk(c, "l2", 1, forgedHeader(t, 8*4<<20)).Err(), msg)
	// A scaling set's growth into a layer that does not fit.
	require.NoError(t, rdb.BFReserveWithArgs(c, "grows", &redis.BFReserveOptions{Error: 0.01, Capacity: 1000, Expansion: 4096}).Err())
	items := make([]any, 1500)
	for i := range items {
		items[i] = i
	}
	require.ErrorContains(t, rdb.BFMAdd(c, "grows", items...).Err(), msg)
	require.EqualValues(t, 1, rdb.BFInfoFilters(c, "grows").Val().Filters)
	require.True(t, rdb.BFExists(c, "grows", 999).Val(), "the adds before the refusal kept")

	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	assert.GreaterOrEqual(t, st.Bavail*uint64(st.Bsize), uint64(4<<20), "the reserve is free")
}

// TestLayersCapped: a set of capacity 1 growing by 1 (one layer per
// key) stops at the layer limit with an error naming it, instead of
// adding thousands of layers (a descriptor and a mapping each); the
// keys added before the refusal stay.
func TestLayersCapped(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFReserveWithArgs(c, "k", &redis.BFReserveOptions{Error: 0.01, Capacity: 1, Expansion: 1}).Err())
	items := make([]any, 3000)
	for i := range items {
		items[i] = i
	}
	err := rdb.BFMAdd(c, "k", items...).Err()
	require.EqualError(t, err, "ERR bloom object reached max number of filters (64 layers, --max-layers)")
	assert.EqualValues(t, store.DefaultMaxLayers, rdb.BFInfoFilters(c, "k").Val().Filters)
	assert.True(t, rdb.BFExists(c, "k", 0).Val())
}

// TestLoadsBounded: one client may run MaxClientLoads loads at once and
// all clients MaxLoads; a finished or replaced load frees its place.
func TestLoadsBounded(t *testing.T) {
	_, addr := startServer(t, Config{Limits: store.Limits{MaxLoads: 3, MaxClientLoads: 2}})
	one, two, c := dial(t, addr, ""), dial(t, addr, ""), ctx(t)
	one.Options().PoolSize, two.Options().PoolSize = 1, 1
	hdr := forgedHeader(t, 8*64)
	require.NoError(t, one.BFLoadChunk(c, "a", 1, hdr).Err())
	require.NoError(t, one.BFLoadChunk(c, "b", 1, hdr).Err())
	require.EqualError(t, one.BFLoadChunk(c, "c", 1, hdr).Err(), "ERR too many loads in progress by this client (2, --max-client-loads)")
	require.NoError(t, two.BFLoadChunk(c, "c", 1, hdr).Err())
	require.EqualError(t, two.BFLoadChunk(c, "d", 1, hdr).Err(), "ERR too many loads in progress (3, --max-loads)")
	require.NoError(t, one.BFLoadChunk(c, "a", 1+64, make([]byte, 64)).Err(), "completes a")
	require.NoError(t, two.BFLoadChunk(c, "d", 1, hdr).Err())
	require.EqualValues(t, 1, one.Exists(c, "a").Val())
}

// TestScanDumpFitsMaxRequest: two servers started with MaxRequest 1 MiB
// copy a 5 MB filter with BF.SCANDUMP and BF.LOADCHUNK (the pieces fit
// the loader's request limit).
func TestScanDumpFitsMaxRequest(t *testing.T) {
	_, a1 := startServer(t, Config{MaxRequest: 1 << 20})
	_, a2 := startServer(t, Config{MaxRequest: 1 << 20})
	src, dst, c := dial(t, a1, ""), dial(t, a2, ""), ctx(t)
	require.NoError(t, src.BFReserveNonScaling(c, "big", 0.001, 3_000_000).Err())
	require.NoError(t, src.BFAdd(c, "big", "x").Err())
	chunks := 0
	for it := int64(0); ; chunks++ {
		d, err := src.BFScanDump(c, "big", it).Result()
		require.NoError(t, err)
		if d.Iter == 0 {
			break
		}
		assert.LessOrEqual(t, len(d.Data), 1<<20-chunkRoom)
		require.NoError(t, dst.BFLoadChunk(c, "copy", d.Iter, d.Data).Err(), "chunk %d", chunks)
		it = d.Iter
	}
	assert.Greater(t, chunks, 5)
	assert.True(t, dst.BFExists(c, "copy", "x").Val())
}

// TestMAddStopsWhenClientLeaves: a BF.MADD of 3,000 keys into a set of
// capacity 1 growing by 1 (a layer per key; the layer limit raised to
// 5,000) that has 100 layers already stops soon after its client closes
// the connection: the set's layers stop growing well before 3,100.
func TestMAddStopsWhenClientLeaves(t *testing.T) {
	_, addr := startServer(t, Config{Limits: store.Limits{MaxLayers: 5000}})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFReserveWithArgs(c, "k", &redis.BFReserveOptions{Error: 0.01, Capacity: 1, Expansion: 1}).Err())
	first := make([]any, 100)
	for i := range first {
		first[i] = "first-" + strconv.Itoa(i)
	}
	require.NoError(t, rdb.BFMAdd(c, "k", first...).Err())
	var req bytes.Buffer
	fmt.Fprintf(&req, "*%d\r\n$7\r\nBF.MADD\r\n$1\r\nk\r\n", 3002)
	for i := range 3000 {
		item := strconv.Itoa(i)
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(item), item)
	}
	nc := rawConn(t, addr)
	_, err := nc.Write(req.Bytes())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return rdb.BFInfoFilters(c, "k").Val().Filters > 101 }, time.Minute, 10*time.Millisecond, "the MADD runs")
	require.NoError(t, nc.Close())
	// The layers stop growing: two readings half a second apart agree.
	last := int64(-1)
	for range 240 {
		n, err := rdb.BFInfoFilters(c, "k").Result()
		require.NoError(t, err)
		if n.Filters == last {
			break
		}
		last = n.Filters
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("layers when the MADD stopped: %d (100 before it, 3,000 keys sent)", last)
	assert.Less(t, last, int64(400), "the MADD stopped after its client left")
}
