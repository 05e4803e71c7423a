package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// expireScript is sent byte for byte to redis-server 7.0 and to the
// server (keys a, b and c exist on both: strings there, filters here);
// every reply is compared exactly but a TTL's remaining seconds
// (sameTTL). What a relative expiry answers must not depend on the
// instant each server got it: an EXPIRE's NX, XX, GT or LT compares
// times at least 10 s apart ("EXPIRE a 100 XX" then "EXPIRE a 100 GT"
// answered 1 when the millisecond changed between the two, so the
// servers differed), equal times are compared on absolute ones
// (EXPIREAT), and a relative expiry is read by TTL only (EXPIRETIME
// after it differed across a second's boundary; TestExpireGoRedis reads
// it on an injected clock).
var expireScript = []string{
	"TTL nosuch\r\n", "PTTL nosuch\r\n", "EXPIRETIME nosuch\r\n", "PEXPIRETIME nosuch\r\n", "PERSIST nosuch\r\n",
	"EXPIRE nosuch 100\r\n", "PEXPIRE nosuch 100000\r\n", "EXPIREAT nosuch 4000000000\r\n", "PEXPIREAT nosuch 4000000000000\r\n",
	"TTL a\r\n", "PTTL a\r\n", "EXPIRETIME a\r\n", "PEXPIRETIME a\r\n", "PERSIST a\r\n",
	"EXPIRE a x\r\n", "EXPIRE a 1.5\r\n", "EXPIRE a 100 FOO\r\n", "EXPIRE a x FOO\r\n", "EXPIRE a 100 NX XX\r\n",
	"EXPIRE a 100 nx gt\r\n", "EXPIRE a 100 GT LT\r\n", "EXPIRE a 100 NX NX\r\n",
	"EXPIRE a 9223372036854775807\r\n", "EXPIRE a -9223372036854775807\r\n", "PEXPIRE a 9223372036854775807\r\n",
	"EXPIREAT a 9223372036854775807\r\n", "PEXPIREAT a 9223372036854775807\r\n", "EXPIRE a 9223372036854775\r\n",
	"EXPIRE a 100 XX\r\n", "EXPIRE a 200 GT\r\n", "EXPIRE a 100 LT\r\n", "TTL a\r\n",
	"EXPIRE a 100 NX\r\n", "TTL a\r\n", "EXPIRE a 50 NX\r\n", "EXPIRE a 200 LT\r\n", "EXPIRE a 200 GT\r\n", "TTL a\r\n",
	"EXPIRE a 50 XX\r\n", "TTL a\r\n", "EXPIRE a 60 xx lt\r\n", "TTL a\r\n", "EXPIRE a 40 GT\r\n", "TTL a\r\n",
	"PERSIST a\r\n", "PERSIST a\r\n", "TTL a\r\n",
	"EXPIREAT a 4000000000\r\n", "EXPIRETIME a\r\n", "PEXPIRETIME a\r\n",
	"PEXPIREAT a 4000000000123\r\n", "EXPIRETIME a\r\n", "PEXPIRETIME a\r\n",
	"EXPIREAT a 4000000001 GT\r\n", "PEXPIRETIME a\r\n", "EXPIREAT a 4000000001 GT\r\n", "EXPIREAT a 3000000000 GT\r\n",
	"PEXPIRETIME a\r\n",
	"PEXPIREAT a 3000000000000 LT\r\n", "EXPIRETIME a\r\n",
	"PEXPIRE b 100000\r\n", "TTL b\r\n",
	"RENAME b d\r\n", "TTL b\r\n", "TTL d\r\n",
	"EXPIRE c 0\r\n", "EXISTS c\r\n", "TTL c\r\n", "TYPE c\r\n",
	"EXPIRE d -1\r\n", "EXISTS d\r\n", "KEYS *\r\n", "DBSIZE\r\n",
	"DEL a\r\n", "TTL a\r\n",
	"EXPIRE\r\n", "EXPIRE a\r\n", "TTL\r\n", "TTL a b\r\n", "PERSIST\r\n", "EXPIRETIME a b\r\n",
	"COMMAND INFO expire pexpire expireat pexpireat ttl pttl expiretime pexpiretime persist\r\n",
	"HELLO 3\r\n",
	"COMMAND INFO expire pexpire expireat pexpireat ttl pttl expiretime pexpiretime persist\r\n",
	"TTL nosuch\r\n",
}

// TestExpireAsRedis: EXPIRE and its family answer byte for byte as
// Debian's redis-server 7.0, with its flags, ACL categories and key
// specifications in COMMAND INFO.
func TestExpireAsRedis(t *testing.T) {
	ref := startRedisRef(t)
	_, addr := startServer(t, Config{ClientIdle: -1, AppendFsync: AppendFsyncNo})
	for _, k := range []string{"a", "b", "c"} {
		send(t, ref, "*3\r\n$3\r\nSET\r\n$1\r\n"+k+"\r\n$1\r\n1\r\n")
		send(t, addr, "*3\r\n$6\r\nBF.ADD\r\n$1\r\n"+k+"\r\n$1\r\nx\r\n")
	}
	rc, sc := dialRaw(t, ref), dialRaw(t, addr)
	start := time.Now()
	for _, req := range expireScript {
		want, got := rc.roundTrip(t, req), sc.roundTrip(t, req)
		switch {
		case req == "HELLO 3\r\n": // the servers' names differ
		case strings.HasPrefix(req, "TTL "):
			sameTTL(t, string(want), string(got), time.Since(start), req)
		default:
			assert.Equal(t, string(want), string(got), "%q", req)
		}
	}
}

// sameTTL compares two servers' replies to req, a TTL: equal, or both
// a remaining time in seconds that the clock could have moved apart
// since the script began (elapsed). A server answers the seconds set
// less ceil((e - 500 ms) / 1 s), e the time since its EXPIRE (at most
// elapsed), so both answer alike when the script ran within half a
// second; past it (a stalled process on a loaded machine) they may not.
func sameTTL(t *testing.T, want, got string, elapsed time.Duration, req string) {
	t.Helper()
	w, werr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(want, ":"), "\r\n"))
	g, gerr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, ":"), "\r\n"))
	if werr != nil || gerr != nil || w < 0 || g < 0 || !strings.HasPrefix(want, ":") || !strings.HasPrefix(got, ":") {
		assert.Equal(t, want, got, "%q", req)
		return
	}
	slack := int((elapsed + 499*time.Millisecond) / time.Second)
	assert.LessOrEqual(t, max(w-g, g-w), slack, "%q: %q and %q, %v after the script began", req, want, got, elapsed)
}

// manualClock is a wall clock tests move by hand (Config.Now).
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newManualClock() *manualClock { return &manualClock{t: time.Unix(1_700_000_000, 0)} }

func (m *manualClock) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

func (m *manualClock) advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t = m.t.Add(d)
}

// TestExpireGoRedis: go-redis's Expire, TTL, PExpire, ExpireAt, Persist
// and ExpireTime on a filter and a set, on an injected clock; once
// expired, every command answers as if the key were absent, and BF.ADD
// creates a fresh one without expiry.
func TestExpireGoRedis(t *testing.T) {
	clock := newManualClock()
	s, addr := startServer(t, Config{ClientIdle: -1, DefaultExpansion: 2, Now: clock.Now, ExpireCycle: -1})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "fixed", 0.01, 1000, "NONSCALING").Err())
	require.NoError(t, rdb.BFAdd(c, "fixed", "x").Err())
	require.NoError(t, rdb.BFAdd(c, "set", "x").Err())

	for _, key := range []string{"fixed", "set"} {
		ok, err := rdb.Expire(c, key, 10*time.Second).Result()
		require.NoError(t, err)
		assert.True(t, ok)
		d, err := rdb.TTL(c, key).Result()
		require.NoError(t, err)
		assert.Equal(t, 10*time.Second, d, key)
		d, err = rdb.PTTL(c, key).Result()
		require.NoError(t, err)
		assert.Equal(t, 10*time.Second, d, key)
		at, err := rdb.ExpireTime(c, key).Result()
		require.NoError(t, err)
		assert.Equal(t, time.Duration(clock.Now().Add(10*time.Second).Unix())*time.Second, at, key)
	}
	ok, err := rdb.ExpireNX(c, "fixed", time.Minute).Result()
	require.NoError(t, err)
	assert.False(t, ok, "NX: it has one")
	ok, err = rdb.Persist(c, "set").Result()
	require.NoError(t, err)
	assert.True(t, ok)
	d, err := rdb.TTL(c, "set").Result()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), d)

	clock.advance(10 * time.Second)
	n, err := rdb.Exists(c, "fixed", "set").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "fixed expired, set persisted")
	for _, tc := range []struct {
		args []any
		want any
	}{
		{[]any{"BF.EXISTS", "fixed", "x"}, int64(0)},
		{[]any{"TTL", "fixed"}, int64(-2)},
		{[]any{"TYPE", "fixed"}, "none"},
		{[]any{"PERSIST", "fixed"}, int64(0)},
		{[]any{"EXPIRE", "fixed", 5}, int64(0)},
		{[]any{"KEYS", "*"}, []any{"set"}},
		{[]any{"DBSIZE"}, int64(1)},
	} {
		got, err := rdb.Do(c, tc.args...).Result()
		require.NoError(t, err, "%v", tc.args)
		assert.Equal(t, tc.want, got, "%v", tc.args)
	}
	assert.NoFileExists(t, filepath.Join(s.cfg.Dir, "fixed.bloom"), "removed at its use")
	added, err := rdb.BFAdd(c, "fixed", "x").Result()
	require.NoError(t, err)
	assert.True(t, added, "a fresh filter")
	d, err = rdb.TTL(c, "fixed").Result()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), d, "a fresh key has no expiry")

	ok, err = rdb.PExpire(c, "set", 1500*time.Millisecond).Result()
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = rdb.ExpireAt(c, "fixed", clock.Now().Add(-time.Second)).Result()
	require.NoError(t, err)
	assert.True(t, ok, "a past time removes the key")
	assert.NoFileExists(t, filepath.Join(s.cfg.Dir, "fixed.bloom"))
	d, err = rdb.TTL(c, "set").Result()
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, d, "1.5 s rounds to 2")
}

// TestExpireRestart: a restart keeps the expiries (the EXPIRES file);
// RENAME moves one, DEL and FLUSHALL drop theirs.
func TestExpireRestart(t *testing.T) {
	clock, dir := newManualClock(), t.TempDir()
	cfg := Config{Dir: dir, ClientIdle: -1, Now: clock.Now, ExpireCycle: -1}
	s, addr := startServer(t, cfg)
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, k := range []string{"a", "b", "gone"} {
		require.NoError(t, rdb.BFAdd(c, k, "x").Err())
		require.NoError(t, rdb.Expire(c, k, time.Hour).Err())
	}
	require.NoError(t, rdb.Rename(c, "b", "moved").Err())
	require.NoError(t, rdb.Del(c, "gone").Err())
	require.NoError(t, rdb.BFAdd(c, "gone", "x").Err())
	require.NoError(t, rdb.Close())
	require.NoError(t, s.Shutdown())

	_, addr = startServer(t, cfg)
	rdb = dial(t, addr, "")
	for key, want := range map[string]time.Duration{"a": time.Hour, "moved": time.Hour, "b": -2, "gone": -1} {
		d, err := rdb.TTL(c, key).Result()
		require.NoError(t, err)
		assert.Equal(t, want, d, key)
	}
	require.NoError(t, rdb.FlushAll(c).Err())
	require.NoError(t, rdb.BFAdd(c, "a", "x").Err())
	d, err := rdb.TTL(c, "a").Result()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), d, "FLUSHALL dropped a's expiry")
}

// TestExpireCycle: the background cycle removes an expired key's file
// without any command on it; a key another process holds open answers
// absent once expired, and is removed once released.
func TestExpireCycle(t *testing.T) {
	clock := newManualClock()
	s, addr := startServer(t, Config{ClientIdle: -1, Now: clock.Now, ExpireCycle: time.Millisecond})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, k := range []string{"idle", "held"} {
		require.NoError(t, rdb.Do(c, "BF.RESERVE", k, 0.01, 1000, "NONSCALING").Err())
		require.NoError(t, rdb.Expire(c, k, time.Minute).Err())
	}
	f, err := mmapbloom.Open(filepath.Join(s.cfg.Dir, "held.bloom"), nil)
	require.NoError(t, err)
	clock.advance(time.Minute)
	idle := filepath.Join(s.cfg.Dir, "idle.bloom")
	require.Eventually(t, func() bool { _, err := os.Stat(idle); return os.IsNotExist(err) }, time.Minute, time.Millisecond, "the cycle removes it")

	assert.FileExists(t, filepath.Join(s.cfg.Dir, "held.bloom"), "held open by another handle")
	for _, tc := range []struct {
		args []any
		want any
	}{
		{[]any{"EXISTS", "held"}, int64(0)},
		{[]any{"BF.EXISTS", "held", "x"}, int64(0)},
		{[]any{"TTL", "held"}, int64(-2)},
		{[]any{"KEYS", "*"}, []any{}},
	} {
		got, err := rdb.Do(c, tc.args...).Result()
		require.NoError(t, err, "%v", tc.args)
		assert.Equal(t, tc.want, got, "%v", tc.args)
	}
	err = rdb.BFAdd(c, "held", "x").Err()
	require.Error(t, err, "not removable yet")
	assert.Contains(t, err.Error(), "is open in another process")
	require.NoError(t, f.Close())
	held := filepath.Join(s.cfg.Dir, "held.bloom")
	require.Eventually(t, func() bool { _, err := os.Stat(held); return os.IsNotExist(err) }, time.Minute, time.Millisecond, "removal retried")
}

// TestExpireFolded: the expiry commands are refused on a folded key as
// DEL is.
func TestExpireFolded(t *testing.T) {
	_, addr := startServer(t, Config{ClientIdle: -1, DefaultExpansion: 2, FoldHashtags: true})
	rdb, c := dial(t, addr, ""), ctx(t)
	require.NoError(t, rdb.BFAdd(c, "seen:{a.com}", "x").Err())
	for _, args := range [][]any{
		{"EXPIRE", "seen:{a.com}", 10}, {"PEXPIRE", "seen:{a.com}", 10}, {"EXPIREAT", "seen:{a.com}", 10},
		{"PEXPIREAT", "seen:{a.com}", 10}, {"TTL", "seen:{a.com}"}, {"PTTL", "seen:{a.com}"},
		{"EXPIRETIME", "seen:{a.com}"}, {"PEXPIRETIME", "seen:{a.com}"}, {"PERSIST", "seen:{a.com}"},
	} {
		err := rdb.Do(c, args...).Err()
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), "of a folded key ('seen:{a.com}')", "%v", args)
	}
}

// TestExpireRecord: EXPIRE, PEXPIRE and EXPIREAT are recorded as
// PEXPIREAT at the absolute time, their options kept; PEXPIREAT and a
// time EXPIRE refuses are recorded as sent.
func TestExpireRecord(t *testing.T) {
	now := func() int64 { return 1_700_000_000_000 }
	for _, tc := range []struct {
		name string
		args []string
		want []string // nil: not rewritten
	}{
		{"expire", []string{"EXPIRE", "k", "10"}, []string{"PEXPIREAT", "k", "1700000010000"}},
		{"pexpire", []string{"pexpire", "k", "-5", "GT"}, []string{"PEXPIREAT", "k", "1699999999995", "GT"}},
		{"expireat", []string{"EXPIREAT", "k", "4000000000", "NX"}, []string{"PEXPIREAT", "k", "4000000000000", "NX"}},
		{"expire", []string{"EXPIRE", "k", "x"}, nil},
		{"expire", []string{"EXPIRE", "k", "9223372036854775"}, nil},
		{"pexpireat", []string{"PEXPIREAT", "k", "5"}, nil},
		{"bf.add", []string{"BF.ADD", "k", "5"}, nil},
	} {
		args := make([][]byte, len(tc.args))
		for i, a := range tc.args {
			args[i] = []byte(a)
		}
		rec, ok := expireRecord(tc.name, args, now)
		require.Equal(t, tc.want != nil, ok, "%v", tc.args)
		if ok {
			got := make([]string, len(rec.Fields))
			for i, f := range rec.Fields {
				got[i] = string(f)
			}
			assert.Equal(t, tc.want, got, "%v", tc.args)
		}
	}
}

// TestExpireJournalReplay: with appendfsync always, the journal holds
// EXPIRE as PEXPIREAT at the absolute time: replayed 30 s later, the
// key has 70 s left of its 100, and a key whose expiry passed meanwhile
// is gone.
func TestExpireJournalReplay(t *testing.T) {
	clock, dir := newManualClock(), t.TempDir()
	_, addr := startServer(t, Config{Dir: dir, AppendFsync: AppendFsyncAlways, Now: clock.Now, ExpireCycle: -1})
	rdb, c := dial(t, addr, ""), ctx(t)
	for _, k := range []string{"long", "short"} {
		require.NoError(t, rdb.BFAdd(c, k, "x").Err())
	}
	require.NoError(t, rdb.Expire(c, "long", 100*time.Second).Err())
	require.NoError(t, rdb.PExpire(c, "short", 20*time.Second).Err())
	require.NotEmpty(t, journalFiles(t, dir), "the writes are in the journal")

	crashed := t.TempDir()
	copyTree(t, dir, crashed)
	require.NoError(t, os.Remove(filepath.Join(crashed, store.ExpiresFile)), "the crash lost the expiry file: the journal alone has them")
	clock.advance(30 * time.Second)
	_, addr2 := startServer(t, Config{Dir: crashed, AppendFsync: AppendFsyncEverysec, Now: clock.Now, ExpireCycle: -1})
	rdb2 := dial(t, addr2, "")
	d, err := rdb2.TTL(c, "long").Result()
	require.NoError(t, err)
	assert.Equal(t, 70*time.Second, d, "absolute: 100 s from the EXPIRE, not from the replay")
	assert.Zero(t, rdb2.Exists(c, "short").Val(), "expired before the replay")
}

// TestExpireReplicated: two nodes on the replication log, node2 a
// replica of node1, sharing an injected clock. EXPIRE on node1: node2
// answers the same TTL once it applied the record (PEXPIREAT at the
// absolute time); past the expiry the key is gone on both, files
// included (each node's cycle).
func TestExpireReplicated(t *testing.T) {
	clock := newManualClock()
	tc, _ := startLoggedNodes(t, primaryAndReplica, func(c *Config) {
		c.Now, c.ExpireCycle = clock.Now, time.Millisecond
	})
	c := ctx(t)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, func() bool { return n1.Do(c, "BF.ADD", "k", "x").Err() == nil }, 2*time.Minute, 50*time.Millisecond,
		"node1 serves its slots")
	require.NoError(t, n1.Expire(c, "k", 100*time.Second).Err())
	n2 := dial(t, tc.addrs[1], "").Conn()
	t.Cleanup(func() { _ = n2.Close() })
	require.NoError(t, n2.ReadOnly(c).Err())
	require.Eventually(t, func() bool { return n2.TTL(c, "k").Val() == 100*time.Second }, time.Minute, 10*time.Millisecond,
		"node2 applies the expiry")
	assert.Equal(t, n1.PExpireTime(c, "k").Val(), n2.PExpireTime(c, "k").Val(), "the same absolute time")

	clock.advance(100 * time.Second)
	for i, rdb := range []redis.Cmdable{n1, n2} {
		assert.Zero(t, rdb.Exists(c, "k").Val(), "node%d", i+1)
		file := filepath.Join(tc.dirs[i], "k.bloom")
		require.Eventually(t, func() bool { _, err := os.Stat(file); return os.IsNotExist(err) }, time.Minute, 10*time.Millisecond,
			"node%d removed the file", i+1)
	}
}
