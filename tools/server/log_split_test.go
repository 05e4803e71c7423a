package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/replication"
	"github.com/mmapbloom/mmapbloom/tools/replication/natstest"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// startLoggedTrio starts three nodes on the log, each on its own
// embedded nats-server of one NATS cluster (streams of three replicas):
// node1 owns every slot, node2 and node3 are its replicas; no failover.
// It returns once node1 takes writes.
func startLoggedTrio(t *testing.T, opts ...func(*Config)) *testCluster {
	t.Helper()
	natstest.RequireEmbedded(t)
	srvs, err := replication.StartLocalCluster(t.TempDir(), []string{"n1", "n2", "n3"})
	require.NoError(t, err)
	for _, s := range srvs {
		t.Cleanup(s.Shutdown)
	}
	tc := startCluster(t, []string{"0-16383", "replica-of node1", "replica-of node1"}, append([]func(*Config){func(c *Config) {
		i, err := strconv.Atoi(strings.TrimPrefix(c.NodeID, "node"))
		require.NoError(t, err)
		c.Replication, c.Replicate.NATSURLs = ReplicationJetStream, []string{srvs[i-1].ClientURL()}
		c.Replicate.Streams = 4
	}}, opts...)...)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return n1.Do(ctx(t), "BF.ADD", "probe", "x").Err() == nil },
		2*time.Minute, 50*time.Millisecond, "node1 takes writes")
	return tc
}

// requireEveryNode waits until every node of tc applied key's stream to
// its end, then checks that each answers every item present (a replica
// on a READONLY connection).
func requireEveryNode(t *testing.T, tc *testCluster, key string, items []string) {
	t.Helper()
	c := ctx(t)
	stream := tc.srvs[0].repl.layout.StreamOf(cluster.KeySlot([]byte(key)))
	last, err := tc.srvs[0].repl.log().LastSeq(c, stream)
	require.NoError(t, err)
	for i, srv := range tc.srvs {
		require.Eventually(t, func() bool { return srv.repl.log() != nil }, time.Minute, 20*time.Millisecond)
		require.NoError(t, srv.repl.log().WaitApplied(c, stream, last), "%s applies %s", tc.ids[i], key)
		conn := dial(t, tc.addrs[i], "").Conn()
		t.Cleanup(func() { _ = conn.Close() })
		if i > 0 {
			require.NoError(t, conn.ReadOnly(c).Err())
		}
		args := []any{"BF.MEXISTS", key}
		for _, it := range items {
			args = append(args, it)
		}
		got, err := conn.Do(c, args...).Int64Slice()
		require.NoError(t, err, "%s", tc.ids[i])
		missing := 0
		for _, g := range got {
			missing += int(1 - g)
		}
		assert.Zero(t, missing, "%s answers every item of %s present", tc.ids[i], key)
	}
}

// items returns n distinct items of size bytes each.
func bigItems(prefix string, n, size int) []string {
	out := make([]string, n)
	for i := range out {
		s := fmt.Sprintf("%s-%d-", prefix, i)
		out[i] = s + strings.Repeat("x", size-len(s))
	}
	return out
}

// Writes whose record is larger than NATS's max_payload (1 MiB here),
// well within --max-request, are split into records that fit: a 1.6 MB
// BF.MADD and BF.INSERT, a pipeline's 1.6 MB run of BF.ADDs of one key,
// and a 3.6 MB BF.LOADCHUNK piece of an ordinary BF.SCANDUMP (a fixed
// filter's and a scaling set's) are answered as without the log, and
// every node answers their items present. An item larger than the log
// takes is refused with ERR naming the limit, not -TRYAGAIN;
// proto-max-bulk-len says the largest item the log takes.
func TestReplicationLargeWrites(t *testing.T) {
	tc := startLoggedTrio(t)
	c, n1 := ctx(t), dial(t, tc.addrs[0], "")
	got, err := n1.ConfigGet(c, "proto-max-bulk-len").Result()
	require.NoError(t, err)
	bulk, err := strconv.Atoi(got["proto-max-bulk-len"])
	require.NoError(t, err)
	assert.Less(t, bulk, 1<<20, "the largest item the log takes, within NATS's max_payload")
	most := bulk + chunkRoom // the log's record bound

	t.Run("madd", func(t *testing.T) {
		items := bigItems("madd", 16_000, 100) // 1.6 MB
		require.NoError(t, n1.Do(c, "BF.RESERVE", "{t}madd", 0.001, 50_000).Err())
		args := []any{"BF.MADD", "{t}madd"}
		for _, it := range items {
			args = append(args, it)
		}
		res, err := n1.Do(c, args...).Slice()
		require.NoError(t, err)
		for i, r := range res {
			if e, ok := r.(error); ok {
				t.Fatalf("item %d: %v", i, e)
			}
		}
		assert.Len(t, res, len(items))
		requireEveryNode(t, tc, "{t}madd", items)
	})
	t.Run("insert", func(t *testing.T) {
		items := bigItems("insert", 16_000, 100)
		args := []any{"BF.INSERT", "{t}insert", "CAPACITY", 50_000, "ERROR", 0.001, "ITEMS"}
		for _, it := range items {
			args = append(args, it)
		}
		got, err := n1.Do(c, args...).Int64Slice()
		require.NoError(t, err)
		assert.Len(t, got, len(items))
		info, err := n1.Do(c, "BF.INFO", "{t}insert", "CAPACITY").Slice()
		require.NoError(t, err)
		assert.Equal(t, []any{int64(50_000)}, info, "the options of the first part made the filter")
		requireEveryNode(t, tc, "{t}insert", items)
	})
	t.Run("pipelined adds", func(t *testing.T) {
		items := bigItems("pipe", 320, 5000) // 1.6 MB in one run of one key
		cmds := make([][]any, len(items))
		for i, it := range items {
			cmds[i] = []any{"BF.ADD", "{t}pipe", it}
		}
		for i, g := range runPipeline(t, n1, cmds) {
			require.Equal(t, int64(1), g, "BF.ADD %d", i)
		}
		requireEveryNode(t, tc, "{t}pipe", items)
	})
	for _, kind := range []string{"NONSCALING", "scaling"} {
		t.Run("loadchunk "+kind, func(t *testing.T) {
			key := "{t}loaded-" + kind
			items := loadDump(t, n1, kind, key)
			requireEveryNode(t, tc, key, items)
		})
	}
	t.Run("too large", func(t *testing.T) {
		err := n1.Do(c, "BF.ADD", "{t}huge", strings.Repeat("h", most)).Err()
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "TRYAGAIN", "no retry can fix it")
		assert.Contains(t, err.Error(), "max_payload")
		assert.Contains(t, err.Error(), "proto-max-bulk-len")
		assert.False(t, n1.BFExists(c, "{t}huge", "h").Val())
	})
}

// loadDump dumps a filter of 3,000,000 items at 1% (a 3.6 MB bit array;
// a fixed filter with NONSCALING, else a scaling set) of a server
// without the log, in RedisBloom's default pieces (up to 4 MiB), and
// loads it into key through rdb, checking each answer; it returns the
// items it holds.
func loadDump(t *testing.T, rdb *redis.Client, kind, key string) []string {
	t.Helper()
	c := ctx(t)
	_, addr := startServer(t, Config{Dir: t.TempDir()})
	src := dial(t, addr, "")
	reserve := []any{"BF.RESERVE", "src", 0.01, 3_000_000}
	if kind == "NONSCALING" {
		reserve = append(reserve, "NONSCALING")
	}
	require.NoError(t, src.Do(c, reserve...).Err())
	items := bigItems("dump", 1000, 20)
	args := []any{"BF.MADD", "src"}
	for _, it := range items {
		args = append(args, it)
	}
	require.NoError(t, src.Do(c, args...).Err())
	largest := 0
	for it := int64(0); ; {
		res, err := src.Do(c, "BF.SCANDUMP", "src", it).Slice()
		require.NoError(t, err)
		next, data := res[0].(int64), res[1].(string)
		if next == 0 {
			break
		}
		largest = max(largest, len(data))
		require.NoError(t, rdb.Do(c, "BF.LOADCHUNK", key, next, data).Err(), "the piece ending before %d (%d bytes)", next, len(data))
		it = next
	}
	require.Greater(t, largest, 3_000_000, "a piece larger than NATS's max_payload")
	return items
}

// The replies of a split write's parts join as the write's own reply.
func TestJoinReplies(t *testing.T) {
	full := "-ERR non scaling filter is full\r\n"
	for _, tc := range []struct {
		name  string
		join  joinKind
		parts []string
		want  string
	}{
		{"arrays", joinArrays, []string{"*2\r\n:1\r\n:0\r\n", "*1\r\n:1\r\n"}, "*3\r\n:1\r\n:0\r\n:1\r\n"},
		{"first part's error", joinArrays, []string{"-WRONGTYPE x\r\n", "-WRONGTYPE x\r\n"}, "-WRONGTYPE x\r\n"},
		{"full ends the array", joinArrays, []string{"*2\r\n:1\r\n" + full, "*1\r\n" + full}, "*2\r\n:1\r\n" + full},
		{"a later part's error ends it", joinArrays, []string{"*1\r\n:1\r\n", "-ERR not found\r\n", "*1\r\n:1\r\n"}, "*2\r\n:1\r\n-ERR not found\r\n"},
		{"last", joinLast, []string{"+OK\r\n", "+OK\r\n"}, "+OK\r\n"},
		{"first error", joinLast, []string{"+OK\r\n", "-ERR received bad data\r\n", "+OK\r\n"}, "-ERR received bad data\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := make([][]byte, len(tc.parts))
			for i, p := range tc.parts {
				parts[i] = []byte(p)
			}
			assert.Equal(t, tc.want, string(joinReplies(tc.join, parts)))
		})
	}
}

// A BF.LOADCHUNK piece splits into sub-pieces that each fit, whose
// iterators place them where the piece's bytes go (a fixed filter's and
// a set layer's); a header or a set's first chunk does not split.
func TestSplitChunk(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100))
	for _, tc := range []struct {
		name string
		it   int64
	}{{"fixed", 1 + 5000 + int64(len(data))}, {"set layer", 3<<layerBits | (1 + 5000 + int64(len(data)))}} {
		t.Run(tc.name, func(t *testing.T) {
			fields := [][]byte{[]byte("BF.LOADCHUNK"), []byte("k"), []byte(strconv.FormatInt(tc.it, 10)), data}
			parts := splitChunk(fields, 300)
			require.Greater(t, len(parts), 3)
			var joined []byte
			start := tc.it - int64(len(data))
			for _, p := range parts {
				assert.LessOrEqual(t, replication.RecordSize(p), 300)
				it, err := strconv.ParseInt(string(p.Fields[2]), 10, 64)
				require.NoError(t, err)
				assert.Equal(t, start+int64(len(joined)+len(p.Fields[3])), it, "one past the sub-piece's end")
				joined = append(joined, p.Fields[3]...)
			}
			assert.Equal(t, data, joined)
		})
	}
	assert.Nil(t, splitChunk([][]byte{[]byte("BF.LOADCHUNK"), []byte("k"), []byte("1"), data}, 300), "a header")
	assert.Nil(t, splitChunk([][]byte{[]byte("BF.LOADCHUNK"), []byte("k"), []byte(strconv.FormatInt(1<<layerBits|1, 10)), data}, 300), "a set's first chunk")
}
