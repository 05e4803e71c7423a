package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// primaryAndReplica is node1 owning every slot and node2 its replica.
var primaryAndReplica = []string{"0-16383", "replica-of node1"}

// readOnlyClient returns a client of addr whose connection sent
// READONLY (one connection, so that the mode holds for every command).
func readOnlyClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 1, MaxRetries: -1,
		ReadTimeout: 30 * time.Second, OnConnect: func(c context.Context, cn *redis.Conn) error {
			return cn.ReadOnly(c).Err()
		}})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// replicationField returns field of the node's INFO replication.
func replicationField(t *testing.T, rdb *redis.Client, field string) string {
	t.Helper()
	text, err := rdb.Info(ctx(t), "replication").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("no %s in %q", field, text)
	return ""
}

// addURLs adds n URLs keyed by host to the primary, pipelined, and
// returns them.
func addURLs(t *testing.T, rdb *redis.Client, from, n int) []string {
	t.Helper()
	urls := make([]string, n)
	pipe := rdb.Pipeline()
	for i := range urls {
		urls[i] = fmt.Sprintf("https://host%d.example/page/%d", (from+i)%37, from+i)
		pipe.BFAdd(ctx(t), hostKey([]byte(urls[i])), urls[i])
	}
	_, err := pipe.Exec(ctx(t))
	require.NoError(t, err)
	return urls
}

// requireFound checks that every URL tests present through rdb.
func requireFound(t *testing.T, rdb redis.Cmdable, urls []string) {
	t.Helper()
	pipe := rdb.Pipeline()
	cmds := make([]*redis.BoolCmd, len(urls))
	for i, u := range urls {
		cmds[i] = pipe.BFExists(ctx(t), hostKey([]byte(u)), u)
	}
	_, err := pipe.Exec(ctx(t))
	require.NoError(t, err)
	for i, c := range cmds {
		require.True(t, c.Val(), urls[i])
	}
}

// TestReplicaCatchUp: after MBF.PULL a READONLY connection to the
// replica finds every URL added to the primary; without READONLY (or
// after READWRITE) reads get MOVED, and writes always do. A key deleted
// on the primary stays on the replica.
func TestReplicaCatchUp(t *testing.T) {
	tc := startCluster(t, primaryAndReplica)
	p, r := dial(t, tc.addrs[0], ""), readOnlyClient(t, tc.addrs[1])
	plain := dial(t, tc.addrs[1], "")
	c := ctx(t)
	urls := addURLs(t, p, 0, 2000)
	n, err := plain.Do(c, "MBF.PULL").Int()
	require.NoError(t, err)
	assert.Equal(t, 37, n)
	requireFound(t, r, urls)

	key := hostKey([]byte(urls[0]))
	moved := fmt.Sprintf("MOVED %d %s", cluster.KeySlot([]byte(key)), tc.addrs[0])
	assert.EqualError(t, plain.BFExists(c, key, urls[0]).Err(), moved)
	assert.EqualError(t, r.BFAdd(c, key, "new").Err(), moved)
	assert.EqualError(t, r.Del(c, key).Err(), moved)
	require.NoError(t, r.Do(c, "BF.INFO", key).Err())
	require.NoError(t, r.Do(c, "READWRITE").Err())
	assert.EqualError(t, r.BFExists(c, key, urls[0]).Err(), moved)
	require.NoError(t, r.Do(c, "READONLY").Err())

	assert.Equal(t, "slave", replicationField(t, plain, "role"))
	assert.Equal(t, "up", replicationField(t, plain, "master_link_status"))
	assert.Equal(t, "master", replicationField(t, p, "role"))
	assert.Equal(t, "1", replicationField(t, p, "mbf_replicas"))
	assert.EqualError(t, p.Do(c, "MBF.PULL").Err(), "ERR "+errNotReplica.Error())

	// Deleted on the primary: kept on the replica (a pull never removes).
	require.NoError(t, p.Del(c, key).Err())
	require.NoError(t, plain.Do(c, "MBF.PULL").Err())
	assert.True(t, r.BFExists(c, key, urls[0]).Val())

	// Re-created on the primary with another shape: the replica takes
	// the primary's filter.
	require.NoError(t, p.BFReserveNonScaling(c, "re", 0.01, 100).Err())
	require.NoError(t, p.BFAdd(c, "re", "a").Err())
	require.NoError(t, plain.Do(c, "MBF.PULL").Err())
	require.NoError(t, p.Del(c, "re").Err())
	require.NoError(t, p.BFReserveNonScaling(c, "re", 0.001, 5000).Err())
	require.NoError(t, p.BFAdd(c, "re", "b").Err())
	require.NoError(t, plain.Do(c, "MBF.PULL").Err())
	assert.True(t, r.BFExists(c, "re", "b").Val())
	assert.Equal(t, int64(5000), r.BFInfoCapacity(c, "re").Val().Capacity)
}

// TestReplicaClusterShapes: CLUSTER SLOTS lists the replica after its
// primary, SHARDS with role replica, NODES with the slave flag.
func TestReplicaClusterShapes(t *testing.T) {
	tc := startCluster(t, primaryAndReplica)
	r, c := dial(t, tc.addrs[1], ""), ctx(t)
	//lint:ignore SA1019 CLUSTER SLOTS (deprecated in Redis 7) is under test
	slots, err := r.ClusterSlots(c).Result()
	require.NoError(t, err)
	require.Len(t, slots, 1)
	assert.Equal(t, []redis.ClusterNode{{ID: "node1", Addr: tc.addrs[0], NetworkingMetadata: map[string]string{}}, {ID: "node2", Addr: tc.addrs[1], NetworkingMetadata: map[string]string{}}}, slots[0].Nodes)
	shards, err := r.ClusterShards(c).Result()
	require.NoError(t, err)
	require.Len(t, shards, 1)
	require.Len(t, shards[0].Nodes, 2)
	assert.Equal(t, "master", shards[0].Nodes[0].Role)
	assert.Equal(t, "replica", shards[0].Nodes[1].Role)
	nodes, err := r.ClusterNodes(c).Result()
	require.NoError(t, err)
	assert.Contains(t, nodes, "node2 "+tc.addrs[1]+"@"+strconv.Itoa(mustPort(t, tc.addrs[1])+10000)+" myself,slave node1 0 0 1 connected\n")
	assert.Contains(t, nodes, " master - 0 0 1 connected 0-16383\n")
}

func mustPort(t *testing.T, addr string) int {
	_, ps, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	p, err := strconv.Atoi(ps)
	require.NoError(t, err)
	return p
}

// TestReplicaClusterClient: go-redis's ClusterClient with ReadOnly (and
// with RouteRandomly, RouteByLatency) reads through the replica and
// writes through the primary. RouteByLatency runs without the race
// detector only: go-redis v9.23.0 starts a node's latency probe before
// its OnNewNode callback sets the node's HIMPORT registry, which the
// probe's first connection reads, and the detector reported that race
// in 1 of 10 runs at load 30.
func TestReplicaClusterClient(t *testing.T) {
	tc := startCluster(t, primaryAndReplica)
	urls := addURLs(t, dial(t, tc.addrs[0], ""), 0, 500)
	require.NoError(t, dial(t, tc.addrs[1], "").Do(ctx(t), "MBF.PULL").Err())
	for _, opt := range []redis.ClusterOptions{{ReadOnly: true}, {RouteRandomly: true}, {RouteByLatency: true}} {
		if opt.RouteByLatency && raceEnabled {
			t.Log("RouteByLatency skipped under the race detector: go-redis's own data race")
			continue
		}
		before := tc.srvs[1].commands.Load()
		opt.Addrs = tc.addrs[1:]
		cc := redis.NewClusterClient(&opt)
		requireFound(t, cc, urls)
		require.NoError(t, cc.BFAdd(ctx(t), "seen:{new.example}", "x").Err())
		require.NoError(t, cc.Close())
		if opt.ReadOnly && !opt.RouteRandomly && !opt.RouteByLatency {
			assert.GreaterOrEqual(t, tc.srvs[1].commands.Load()-before, int64(len(urls)), "reads served by the replica")
		}
	}
}

// TestReplicaSets: scaling and windowed sets are pulled layer by layer;
// a second pull after the primary's set grew adds the new layer.
func TestReplicaSets(t *testing.T) {
	tc := startCluster(t, primaryAndReplica)
	p, r, c := dial(t, tc.addrs[0], ""), readOnlyClient(t, tc.addrs[1]), ctx(t)
	require.NoError(t, p.BFReserveExpansion(c, "scaling", 0.01, 100, 2).Err())
	require.NoError(t, p.Do(c, "MBF.RESERVEWINDOW", "windowed", "0.01", "1000", "WINDOW", "3600", "KEEP", "3").Err())
	items := func(from, to int) []any {
		var out []any
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("item-%d", i))
		}
		return out
	}
	for round, n := range []int{300, 1500} {
		for _, key := range []string{"scaling", "windowed"} {
			require.NoError(t, p.BFMAdd(c, key, items(0, n)...).Err())
		}
		require.NoError(t, r.Do(c, "MBF.PULL").Err(), round)
		for _, key := range []string{"scaling", "windowed"} {
			found, err := r.BFMExists(c, key, items(0, n)...).Result()
			require.NoError(t, err)
			assert.NotContains(t, found, false, "%s round %d", key, round)
			pi, err := p.BFInfo(c, key).Result()
			require.NoError(t, err)
			ri, err := r.BFInfo(c, key).Result()
			require.NoError(t, err)
			assert.Equal(t, pi, ri, key)
		}
	}
	assert.Greater(t, p.BFInfo(c, "scaling").Val().Filters, int64(2))
}

// TestReplicaHostilePrimary: a primary answering malformed dumps makes
// MBF.PULL fail with an error; the replica keeps its data, serves it,
// and its pull status says why.
func TestReplicaHostilePrimary(t *testing.T) {
	for _, tt := range []struct{ name, scan, dump, want string }{
		{"not an array", "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n", "+OK\r\n", "key \"k\""},
		{"short header", "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n", "*2\r\n:1\r\n$3\r\nabc\r\n", "not a filter header"},
		{"scan never ends", "*2\r\n$1\r\n5\r\n*0\r\n", "", "cursor 5 after 5"},
		{"scan error", "-ERR no\r\n", "", "SCAN: ERR no"},
		{"bad set listing", "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n", "-ERR " + setDumpRefused + "\r\n", "layer file name \"../x.conf\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakePrimary(t, func(args []string) string {
				switch args[0] {
				case "SCAN":
					return tt.scan
				case "BF.SCANDUMP":
					return tt.dump
				case "MBF.SETDUMP":
					return "*2\r\n$2\r\n{}\r\n$9\r\n../x.conf\r\n"
				}
				return "+OK\r\n"
			})
			r := replicaOf(t, fake)
			rdb := readOnlyClient(t, r.addr)
			err := rdb.Do(ctx(t), "MBF.PULL").Err()
			require.ErrorContains(t, err, tt.want)
			assert.True(t, rdb.BFExists(ctx(t), "k", "kept").Val())
			assert.Equal(t, "down", replicationField(t, rdb, "master_link_status"))
			assert.NotEmpty(t, replicationField(t, rdb, "mbf_last_pull_error"))
			ents, err := os.ReadDir(r.dir)
			require.NoError(t, err)
			assert.Len(t, ents, 1, "temporary files removed") // k.bloom
		})
	}
}

// TestReplicaHostileDumpPieces: a real header, then pieces that do not
// follow it or do not fit, fail the pull, whether the replica ORs them
// in place (its key has the header's shape) or into a temporary file
// (another seed); the replica keeps its data.
func TestReplicaHostileDumpPieces(t *testing.T) {
	hdrs := map[string][]byte{}
	for name, seed := range map[string]uint64{"in place": replicaSeed, "temporary file": replicaSeed + 1} {
		f, err := mmapbloom.Create(filepath.Join(t.TempDir(), "h.bloom"), 1000, 0.01, &mmapbloom.CreateOptions{Seed: seed, FixedSeed: true})
		require.NoError(t, err)
		hdrs[name] = make([]byte, 64)
		require.NoError(t, f.Header().Encode(hdrs[name]))
		require.NoError(t, f.Close())
	}
	bulk := func(b []byte) string { return "$" + strconv.Itoa(len(b)) + "\r\n" + string(b) + "\r\n" }
	for _, tt := range []struct{ name, piece, want string }{
		{"next skips", "*2\r\n:100\r\n" + bulk([]byte("xx")), "received bad data: piece at iterator 1"},
		{"empty piece", "*2\r\n:0\r\n$0\r\n\r\n", "received bad data: piece at iterator 1"},
		{"beyond the array", "*2\r\n:" + strconv.Itoa(1+1<<20) + "\r\n" + bulk(make([]byte, 1<<20)), "beyond the"},
	} {
		for via, hdr := range hdrs {
			t.Run(tt.name+", "+via, func(t *testing.T) {
				fake := fakePrimary(t, func(args []string) string {
					switch {
					case args[0] == "SCAN":
						return "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"
					case args[0] == "BF.SCANDUMP" && args[2] == "0":
						return "*2\r\n:1\r\n" + bulk(hdr)
					case args[0] == "BF.SCANDUMP":
						return tt.piece
					}
					return "+OK\r\n"
				})
				r := replicaOf(t, fake)
				rdb := readOnlyClient(t, r.addr)
				require.ErrorContains(t, rdb.Do(ctx(t), "MBF.PULL").Err(), tt.want)
				assert.True(t, rdb.BFExists(ctx(t), "k", "kept").Val())
				ents, err := os.ReadDir(r.dir)
				require.NoError(t, err)
				assert.Len(t, ents, 1, "temporary files removed")
			})
		}
	}
}

type replicaNode struct{ addr, dir string }

// replicaSeed is the seed of replicaOf's key k.
const replicaSeed = 42

// replicaOf starts a replica of the primary at addr, holding key k with
// the item "kept".
func replicaOf(t *testing.T, primary string) replicaNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	conf := filepath.Join(t.TempDir(), "nodes.conf")
	require.NoError(t, os.WriteFile(conf, []byte("p "+primary+" 0-16383\nr "+ln.Addr().String()+" replica-of p\n"), 0o644))
	dir := t.TempDir()
	f, err := mmapbloom.Create(filepath.Join(dir, "k.bloom"), 1000, 0.01, &mmapbloom.CreateOptions{Seed: replicaSeed, FixedSeed: true})
	require.NoError(t, err)
	require.NoError(t, f.Add([]byte("kept")))
	require.NoError(t, f.Close())
	startNode(t, ln, dir, conf, "r")
	return replicaNode{ln.Addr().String(), dir}
}

// fakePrimary serves RESP on a free port: each command (its name upper
// case, then its arguments) gets answer's raw reply, "" closing the
// connection; HELLO gets NOPROTO (RESP2 only).
func fakePrimary(t *testing.T, answer func(args []string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go serveFake(nc, answer)
		}
	}()
	return ln.Addr().String()
}

func serveFake(nc net.Conn, answer func(args []string) string) {
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(time.Minute))
	rd := redcon.NewReader(nc)
	for {
		cmds, err := rd.ReadCommands()
		if err != nil {
			return
		}
		for _, cmd := range cmds {
			args := []string{strings.ToUpper(string(cmd.Args[0]))}
			for _, a := range cmd.Args[1:] {
				args = append(args, string(a))
			}
			reply := "-NOPROTO unsupported protocol version\r\n"
			if args[0] != "HELLO" {
				reply = answer(args)
			}
			if reply == "" {
				return
			}
			if _, err := nc.Write([]byte(reply)); err != nil {
				return
			}
		}
	}
}

// FuzzFetchFile: a primary answering a dump with any header and pieces
// (the fuzzer's; next iterator as the pieces say, or forced) makes
// fetchFile fail and leave no file, or return a load of exactly the
// header's size; never a panic or a loop.
func FuzzFetchFile(f *testing.F) {
	h, err := mmapbloom.Create(filepath.Join(f.TempDir(), "h.bloom"), 1000, 0.01, nil)
	require.NoError(f, err)
	hdr := make([]byte, 64)
	require.NoError(f, h.Header().Encode(hdr))
	require.NoError(f, h.Close())
	f.Add(hdr, int64(1), make([]byte, 600), int64(0))
	f.Add(hdr, int64(1), []byte("x"), int64(5))
	f.Add([]byte("short"), int64(1), []byte{}, int64(0))
	f.Fuzz(func(t *testing.T, header []byte, next0 int64, piece []byte, next int64) {
		calls := 0
		do := func(ctx context.Context, args ...any) *redis.Cmd {
			cmd := redis.NewCmd(ctx, args...)
			it := args[2].(int64) // BF.SCANDUMP k it CHUNKSIZE n
			switch calls++; {
			case calls > 10000:
				cmd.SetErr(errors.New("too many calls"))
			case it == 0:
				cmd.SetVal([]any{next0, string(header)})
			case next != 0:
				cmd.SetVal([]any{next, string(piece)})
			default:
				cmd.SetVal([]any{it + int64(len(piece)), string(piece)})
			}
			return cmd
		}
		dir := t.TempDir()
		l, err := fetchFile(context.Background(), &dump{do: do, prefix: []any{"BF.SCANDUMP", "k"}, chunk: dumpChunk}, limitedStore(t, dir), filepath.Join(dir, "k.bloom"))
		if err != nil {
			ents, _ := os.ReadDir(dir)
			require.Empty(t, ents)
			return
		}
		defer l.Abort()
		require.Less(t, calls, 10000)
		st, err := l.f.Stat()
		require.NoError(t, err)
		require.Equal(t, int64(64+l.size), st.Size())
	})
}

// TestReplicaFolding: a replica folding as its primary does copies the
// buckets' sets (MBF.BUCKETS, MBF.BUCKETDUMP) and answers for folded
// keys; pulls are refused, with their reason, when only one of them
// folds.
func TestReplicaFolding(t *testing.T) {
	fold := func(nodes ...string) func(c *Config) {
		return func(c *Config) {
			if slices.Contains(nodes, c.NodeID) {
				c.FoldHashtags, c.DefaultExpansion = true, 2
			}
		}
	}
	tc := startCluster(t, primaryAndReplica, fold("node1", "node2"))
	urls := addURLs(t, dial(t, tc.addrs[0], ""), 0, 3000)
	r := readOnlyClient(t, tc.addrs[1])
	n, err := r.Do(ctx(t), "MBF.PULL").Int()
	require.NoError(t, err)
	assert.Positive(t, n)
	requireFound(t, r, urls)
	urls = append(urls, addURLs(t, dial(t, tc.addrs[0], ""), 3000, 3000)...)
	require.NoError(t, r.Do(ctx(t), "MBF.PULL").Err())
	requireFound(t, r, urls)
	buckets, err := r.Do(ctx(t), "MBF.BUCKETS").StringSlice()
	require.NoError(t, err)
	assert.NotEmpty(t, buckets)

	for _, folds := range []string{"node1", "node2"} {
		tc := startCluster(t, primaryAndReplica, fold(folds))
		err := dial(t, tc.addrs[1], "").Do(ctx(t), "MBF.PULL").Err()
		require.ErrorContains(t, err, "must fold hash-tagged keys as its primary does", folds)
	}
}
