package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// foldConfig is a server config that folds hash-tagged keys.
func foldConfig() Config {
	return Config{FoldHashtags: true, DefaultExpansion: 2, DefaultCapacity: 10_000}
}

// sameBucket returns n hosts (hostPrefix-i) whose keys seen:{host} fall in
// the bucket of 64 of host0's.
func sameBucket(n int) []string {
	want := cluster.KeySlot([]byte("host0")) / 256
	out := []string{"host0"}
	for i := 1; len(out) < n && i < 1_000_000; i++ {
		h := fmt.Sprintf("host%d", i)
		if cluster.KeySlot([]byte(h))/256 == want {
			out = append(out, h)
		}
	}
	return out
}

func TestFoldConfig(t *testing.T) {
	dir := t.TempDir()
	for _, b := range []int{3, 100, -64, 32768} {
		cfg := foldConfig()
		cfg.Dir, cfg.FoldBuckets = dir, b
		_, err := New(cfg)
		require.ErrorIs(t, err, ErrFoldConfig, b)
		assert.ErrorContains(t, err, "power of two from 1 to 16384")
	}
	cfg := foldConfig()
	cfg.Dir, cfg.DefaultExpansion = dir, 0
	_, err := New(cfg)
	require.ErrorIs(t, err, ErrFoldConfig)
	assert.NoFileExists(t, filepath.Join(dir, foldMarker), "nothing recorded by a refused config")

	cfg = foldConfig()
	cfg.Dir = dir
	_, err = New(cfg)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(dir, foldMarker))
	_, err = New(cfg)
	require.NoError(t, err, "the same folding again")
	cfg.FoldBuckets = 128
	_, err = New(cfg)
	require.ErrorIs(t, err, ErrFoldConfig)
	assert.ErrorContains(t, err, "was served with folding (fold-buckets 64)")
	_, err = New(Config{Dir: dir})
	require.ErrorIs(t, err, ErrFoldConfig, "folding off on a folded directory")
	_, err = New(Config{Dir: t.TempDir()})
	require.NoError(t, err, "off by default")

	// A directory with a hash-tagged key of its own is not folded.
	dir = t.TempDir()
	f, err := mmapbloom.Create(filepath.Join(dir, "seen:%7Ba.com%7D.bloom"), 100, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	cfg = foldConfig()
	cfg.Dir = dir
	_, err = New(cfg)
	require.ErrorIs(t, err, ErrFoldConfig)
	assert.ErrorContains(t, err, "holds filters of keys with a {hash tag} ('seen:{a.com}')")
	assert.NoFileExists(t, filepath.Join(dir, foldMarker))
}

// TestFoldCommands drives every command on folded keys: the item
// commands through the bucket, the others refused, plain keys as before.
func TestFoldCommands(t *testing.T) {
	s, addr := startServer(t, foldConfig())
	rdb, c := dial(t, addr, ""), ctx(t)
	hosts := sameBucket(2)
	a, b := "seen:{"+hosts[0]+"}", "seen:{"+hosts[1]+"}"

	assert.True(t, rdb.BFAdd(c, a, "x").Val())
	assert.False(t, rdb.BFAdd(c, a, "x").Val())
	assert.True(t, rdb.BFExists(c, a, "x").Val())
	assert.False(t, rdb.BFExists(c, b, "x").Val(), "x was added under another tag of the same bucket")
	assert.True(t, rdb.BFAdd(c, b, "x").Val(), "new under its own tag")
	assert.Equal(t, []bool{true, true}, rdb.BFMAdd(c, a, "y", "z").Val())
	assert.Equal(t, []bool{true, true, true, false}, rdb.BFMExists(c, a, "x", "y", "z", "w").Val())
	assert.Equal(t, []bool{true, false, false}, rdb.BFMExists(c, b, "x", "y", "z").Val())
	ins, err := rdb.BFInsert(c, b, &redis.BFInsertOptions{NoCreate: true}, "y", "x").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false}, ins)
	// A pipelined run of BF.ADD on one key is one batch call.
	p := rdb.Pipeline()
	adds := []*redis.BoolCmd{p.BFAdd(c, a, "p1"), p.BFAdd(c, a, "p2"), p.BFAdd(c, a, "x")}
	_, err = p.Exec(c)
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true, false}, []bool{adds[0].Val(), adds[1].Val(), adds[2].Val()})

	bucket := cluster.KeySlot([]byte(hosts[0])) / 256
	setDir := fmt.Sprintf("seen:%%7B%%7D@b%d.bfset", bucket)
	assert.Equal(t, []string{foldMarker, setDir}, testkit.DirNames(t, s.cfg.Dir), "one set for both keys")
	// The tag is not in the file name: a 300-byte host is a key.
	long := "seen:{" + strings.Repeat("h", 300) + "}"
	assert.True(t, rdb.BFAdd(c, long, "x").Val())
	assert.True(t, rdb.BFExists(c, long, "x").Val())
	assert.False(t, rdb.BFExists(c, long, "y").Val())

	// Plain keys, and a key with an empty tag, are files of their own.
	assert.True(t, rdb.BFAdd(c, "plain", "x").Val())
	assert.True(t, rdb.BFAdd(c, "seen:{}", "x").Val())
	assert.Equal(t, int64(1), rdb.BFCard(c, "seen:{}").Val())
	assert.Equal(t, int64(2), rdb.Exists(c, "plain", "seen:{}").Val())
	assert.Equal(t, []string{"plain", "seen:{}"}, rdb.Keys(c, "*").Val(), "folded keys are not listed")

	refused := map[string][]any{
		"BF.CARD":           {"bf.card", a},
		"BF.INFO":           {"bf.info", a},
		"DEL":               {"del", "plain", a},
		"EXISTS":            {"exists", "plain", a},
		"TYPE":              {"type", a},
		"BF.SCANDUMP":       {"bf.scandump", a, 0},
		"BF.LOADCHUNK":      {"bf.loadchunk", a, 1, "x"},
		"MBF.RESERVEWINDOW": {"mbf.reservewindow", a, 0.01, 100, "WINDOW", 60, "KEEP", 2},
	}
	for name, args := range refused {
		err := rdb.Do(c, args...).Err()
		require.Error(t, err, name)
		assert.True(t, strings.HasPrefix(err.Error(), "ERR "+name+" of a folded key ('seen:{"), err.Error())
		assert.Contains(t, err.Error(), "--fold-hashtags", name)
	}
	assert.True(t, rdb.BFExists(c, "plain", "x").Val(), "DEL removed nothing")
	assert.True(t, rdb.BFExists(c, a, "x").Val())

	// Inside MULTI ... EXEC the refusal is that command's reply.
	tx := rdb.TxPipeline()
	card, add := tx.BFCard(c, a), tx.BFAdd(c, a, "tx")
	_, _ = tx.Exec(c)
	assert.ErrorContains(t, card.Err(), "BF.CARD of a folded key")
	assert.True(t, add.Val())
}

// TestFoldReserve: BF.RESERVE and BF.INSERT's creation of a folded key
// make its bucket's scaling set; a reserve of another key of an existing
// bucket answers OK when the set keeps the error rate asked.
func TestFoldReserve(t *testing.T) {
	s, addr := startServer(t, foldConfig())
	rdb, c := dial(t, addr, ""), ctx(t)
	hosts := sameBucket(3)
	key := func(i int) string { return "seen:{" + hosts[i] + "}" }

	require.Equal(t, "OK", rdb.BFReserve(c, key(0), 0.001, 500).Val())
	require.Equal(t, "OK", rdb.BFReserve(c, key(0), 0.001, 500).Val(), "the same key again")
	require.Equal(t, "OK", rdb.BFReserve(c, key(1), 0.01, 100).Val(), "looser than the bucket's")
	err := rdb.BFReserve(c, key(2), 0.0001, 100).Err()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "ERR BF.RESERVE of a folded key: "), err.Error())
	assert.Contains(t, err.Error(), "scalable set at error rate 0.001, asked 0.0001")
	for _, args := range [][]any{
		{"bf.reserve", key(2), 0.01, 100, "NONSCALING"},
		{"bf.reserve", key(2), 0.01, 100, "EXPANSION", 0},
		{"bf.insert", "seen:{other}", "NONSCALING", "ITEMS", "x"},
	} {
		assert.ErrorContains(t, rdb.Do(c, args...).Err(), "must scale: NONSCALING or EXPANSION 0 is refused", args)
	}
	assert.EqualError(t, rdb.BFInsert(c, "new:{h}", &redis.BFInsertOptions{NoCreate: true}, "x").Err(), "ERR not found")

	ins, err := rdb.BFInsert(c, "robots:{h}", &redis.BFInsertOptions{Capacity: 700, Error: 0.02}, "a").Result()
	require.NoError(t, err)
	assert.Equal(t, []bool{true}, ins)

	entries := testkit.DirNames(t, s.cfg.Dir)
	info := func(entry string) (uint64, float64) {
		st, err := s.cfg.Sets.Open(filepath.Join(s.cfg.Dir, entry))
		require.NoError(t, err)
		defer st.Close()
		info, err := st.(store.Set).Info()
		require.NoError(t, err)
		return info.N, info.P
	}
	robots := fmt.Sprintf("robots:%%7B%%7D@b%d.bfset", cluster.KeySlot([]byte("h"))/256)
	seen := fmt.Sprintf("seen:%%7B%%7D@b%d.bfset", cluster.KeySlot([]byte(hosts[0]))/256)
	assert.Equal(t, []string{foldMarker, robots, seen}, entries)
	n, p := info(seen)
	assert.Equal(t, []any{uint64(500), 0.001}, []any{n, p}, "the first reserve's parameters")
	n, p = info(robots)
	assert.Equal(t, []any{uint64(700), 0.02}, []any{n, p}, "BF.INSERT's CAPACITY and ERROR")
}

// TestFoldCrawl: 10,000 hosts with 3 URLs each under two names, as a
// crawler keys them: the files are the names times the buckets touched,
// every URL is present under its host, URLs tested under another host of
// their bucket are absent up to the false-positive rate; without
// --fold-hashtags each key is its own file, as before.
func TestFoldCrawl(t *testing.T) {
	const hosts, perHost = 10_000, 3
	names := []string{"seen:{%s}", "{%s}:robots"}
	url := func(h, i int) string { return fmt.Sprintf("https://h%d.example/page/%d", h, i) }
	key := func(name string, h int) string { return fmt.Sprintf(name, fmt.Sprintf("h%d.example", h)) }
	add := func(rdb *redis.Client, hosts int) {
		c := ctx(t)
		// Pipelines of 100 BF.MADDs: the server answers a pipeline read
		// at once after running it, and 1,000 of them (each creating a
		// set, with its fsyncs) once outlasted the client's 2-minute
		// read timeout in a -race run at load 20.
		for h0 := 0; h0 < hosts; h0 += 50 {
			p := rdb.Pipeline()
			for h := h0; h < min(h0+50, hosts); h++ {
				for _, name := range names {
					p.BFMAdd(c, key(name, h), url(h, 0), url(h, 1), url(h, 2))
				}
			}
			_, err := p.Exec(c)
			require.NoError(t, err)
		}
	}

	cfg := foldConfig()
	cfg.Dir = memDir(t)       // creating sets costs fsyncs: on tmpfs when it can
	cfg.DefaultCapacity = 500 // about the URLs of a bucket: the sets near their false-positive rate
	s, addr := startServer(t, cfg)
	rdb, c := dial(t, addr, ""), ctx(t)
	add(rdb, hosts)
	buckets := map[int]bool{}
	for h := range hosts {
		buckets[cluster.KeySlot([]byte(fmt.Sprintf("h%d.example", h)))/256] = true
	}
	assert.Len(t, testkit.DirNames(t, s.cfg.Dir), 1+len(names)*len(buckets), "the marker, and one set per name and bucket")
	assert.LessOrEqual(t, len(buckets), 64)

	byBucket := map[int][]int{}
	for h := range hosts {
		b := cluster.KeySlot([]byte(fmt.Sprintf("h%d.example", h))) / 256
		byBucket[b] = append(byBucket[b], h)
	}
	missing, wrongHost, tested := 0, 0, 0
	for h0 := 0; h0 < hosts; h0 += 500 {
		p := rdb.Pipeline()
		var own, other []*redis.BoolSliceCmd
		for h := h0; h < min(h0+500, hosts); h++ {
			for _, name := range names {
				own = append(own, p.BFMExists(c, key(name, h), url(h, 0), url(h, 1), url(h, perHost-1)))
			}
			peers := byBucket[cluster.KeySlot([]byte(fmt.Sprintf("h%d.example", h)))/256]
			peer := peers[(h*7919)%len(peers)]
			if peer != h {
				other = append(other, p.BFMExists(c, key(names[0], peer), url(h, 0), url(h, 1), url(h, 2)))
			}
		}
		_, err := p.Exec(c)
		require.NoError(t, err)
		for _, cmd := range own {
			for _, ok := range cmd.Val() {
				if !ok {
					missing++
				}
			}
		}
		for _, cmd := range other {
			for _, ok := range cmd.Val() {
				tested++
				if ok {
					wrongHost++
				}
			}
		}
	}
	assert.Zero(t, missing, "URLs absent under their own host")
	require.Greater(t, tested, 20_000)
	// The sets' target is p = 0.01 (0.005 for a first layer), so at most
	// about 1% of the URLs of other hosts test present (0.14% here); 2% is
	// more than 20 standard deviations above that.
	assert.Less(t, float64(wrongHost)/float64(tested), 0.02, "%d of %d URLs present under another host of their bucket", wrongHost, tested)
	t.Logf("%d files for %d keys; %d of %d URLs present under another host of their bucket", len(testkit.DirNames(t, s.cfg.Dir)), hosts*len(names), wrongHost, tested)

	// Off by default: a file (set) per key.
	s2, addr2 := startServer(t, Config{Dir: memDir(t), DefaultExpansion: 2, DefaultCapacity: 100})
	add(dial(t, addr2, ""), 100)
	assert.Len(t, testkit.DirNames(t, s2.cfg.Dir), 100*len(names))
	assert.NoFileExists(t, filepath.Join(s2.cfg.Dir, foldMarker))
}

// foldNode turns on folding in a test cluster node's config.
func foldNode(cfg *Config) { cfg.FoldHashtags, cfg.DefaultExpansion = true, 2 }

// TestClusterFoldMigrateBucketOnTarget: a move whose bucket the target
// holds already (it owns other slots of it) is refused before anything
// is copied, since a copy over it would drop the target's adds; the
// slots resume with MBF.MIGRATE CANCEL and nothing was lost.
func TestClusterFoldMigrateBucketOnTarget(t *testing.T) {
	// Bucket 21 of 64 is slots 5376-5631: node1 owns 5376-5460, node2 the rest.
	tc := startCluster(t, threeRanges, foldNode)
	c := ctx(t)
	cc := tc.client(t)
	var onNode1, onNode2 string
	for i := 0; onNode1 == "" || onNode2 == ""; i++ {
		k := fmt.Sprintf("m%d", i)
		switch s := cluster.KeySlot([]byte(k)); {
		case 5376 <= s && s <= 5460:
			onNode1 = "seen:{" + k + "}"
		case 5461 <= s && s <= 5631:
			onNode2 = "seen:{" + k + "}"
		}
	}
	require.True(t, cc.BFAdd(c, onNode1, "x").Val())
	require.True(t, cc.BFAdd(c, onNode2, "y").Val())
	node1 := dial(t, tc.addrs[0], "")
	err := node1.Do(c, "mbf.migrate", "5376-5460", tc.dirs[1]).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ERR MBF.MIGRATE with folded keys: a bucket to copy exists in the destination")
	assert.Contains(t, err.Error(), "seen:%7B%7D@b21.bfset")
	assert.Equal(t, []string{foldMarker, "seen:%7B%7D@b21.bfset"}, testkit.DirNames(t, tc.dirs[1]), "nothing copied")
	require.NoError(t, node1.Do(c, "mbf.migrate", "cancel").Err())
	assert.True(t, cc.BFExists(c, onNode1, "x").Val())
	assert.True(t, cc.BFExists(c, onNode2, "y").Val())
	assert.False(t, cc.BFExists(c, onNode2, "x").Val())
}

// TestClusterFoldMigrateMarker: MBF.MIGRATE carries the folding record
// to a destination without one, and refuses one folded differently.
func TestClusterFoldMigrateMarker(t *testing.T) {
	tc := startCluster(t, threeRanges, foldNode)
	c := ctx(t)
	node1 := dial(t, tc.addrs[0], "")
	require.NoError(t, node1.BFAdd(c, "seen:{"+keysIn(1, 0, 100)[0]+"}", "x").Err())

	staging := t.TempDir()
	n, err := node1.Do(c, "mbf.migrate", "0-100", staging).Int()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	marker, err := os.ReadFile(filepath.Join(staging, foldMarker))
	require.NoError(t, err)
	assert.Equal(t, "fold-buckets 64\n", string(marker))
	require.NoError(t, node1.Do(c, "mbf.migrate", "cancel").Err())

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, foldMarker), []byte("fold-buckets 128\n"), 0o644))
	err = node1.Do(c, "mbf.migrate", "0-100", other).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `is served with folding "fold-buckets 128", this node with "fold-buckets 64"`)
	assert.Equal(t, []string{foldMarker}, testkit.DirNames(t, other), "nothing copied")
	require.NoError(t, node1.Do(c, "mbf.migrate", "cancel").Err())
}
