package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dial2 is a RESP2 go-redis client of addr (no HELLO 3 refused first:
// the error counts stay those of the test's own commands).
func dial2(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true,
		DialTimeout: 5 * time.Second, ReadTimeout: 2 * time.Minute, MaxRetries: -1, PoolSize: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// parseInfo returns INFO's fields by name, and the section titles in
// order.
func parseInfo(t *testing.T, text string) (map[string]string, []string) {
	t.Helper()
	fields := map[string]string{}
	var titles []string
	for _, line := range strings.Split(text, "\r\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			titles = append(titles, line[2:])
		case line == "":
		default:
			k, v, ok := strings.Cut(line, ":")
			require.True(t, ok, "line %q", line)
			fields[k] = v
		}
	}
	return fields, titles
}

func infoOf(t *testing.T, rdb *redis.Client, sections ...string) map[string]string {
	t.Helper()
	text, err := rdb.Info(ctx(t), sections...).Result()
	require.NoError(t, err)
	fields, _ := parseInfo(t, text)
	return fields
}

func TestInfoSectionGroups(t *testing.T) {
	_, addr := startServer(t, Config{})
	rdb := dial2(t, addr)
	defaults := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules",
		"Errorstats", "Cluster", "Keyspace"}
	all := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules",
		"Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace"}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, defaults},
		{[]string{"default"}, defaults},
		{[]string{"all"}, all},
		{[]string{"everything"}, append(all, "Bloom")},
		{[]string{"modules"}, []string{"Modules", "Bloom"}}, // the list and every module's
		{[]string{"module_list"}, []string{"Modules"}},
		{[]string{"bloom"}, []string{"Bloom"}},
		{[]string{"KEYSPACE", "server"}, []string{"Server", "Keyspace"}},
		{[]string{"commandstats", "latencystats"}, []string{"Commandstats", "Latencystats"}},
		{[]string{"nosuchsection"}, nil},
	} {
		args := []any{"INFO"}
		for _, a := range tc.args {
			args = append(args, a)
		}
		text, err := rdb.Do(ctx(t), args...).Text()
		require.NoError(t, err)
		_, titles := parseInfo(t, text)
		assert.Equal(t, tc.want, titles, "INFO %v", tc.args)
	}
}

// TestCommandStats runs a known load and reads every counter it moves:
// calls (pipelined batches counted per command), rejected and failed
// calls, error replies by code, latency percentiles, keys added. The
// full NONSCALING filter has a fixed seed (fixSeeds).
func TestCommandStats(t *testing.T) {
	s, addr := startServer(t, Config{})
	fixSeeds(t, s)
	rdb := dial2(t, addr)
	c := ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "full", "0.01", "2", "NONSCALING").Err())
	for _, k := range []string{"a", "b", "a"} {
		require.NoError(t, rdb.Do(c, "BF.ADD", "seen", k).Err())
	}
	pipe := rdb.Pipeline()
	for i := range 10 {
		pipe.Do(c, "BF.EXISTS", "seen", strconv.Itoa(i))
	}
	_, err := pipe.Exec(c)
	require.NoError(t, err)
	// Items 1 and 2 fit, the third is refused: one failed call, one error.
	require.NoError(t, rdb.Do(c, "BF.MADD", "full", "x", "y", "z").Err())
	assert.Error(t, rdb.Do(c, "BF.ADD", "seen").Err())                  // arity: rejected
	assert.Error(t, rdb.Do(c, "NOSUCHCOMMAND", "x").Err())              // unknown: ERR
	assert.Error(t, rdb.Do(c, "BF.RESERVE", "full", "0.01", "2").Err()) // exists: failed

	f := infoOf(t, rdb, "commandstats", "errorstats", "latencystats", "stats", "bloom")
	for name, want := range map[string]string{
		"bf.add":     "calls=3,rejected_calls=1,failed_calls=0",
		"bf.exists":  "calls=10,rejected_calls=0,failed_calls=0",
		"bf.madd":    "calls=1,rejected_calls=0,failed_calls=1",
		"bf.reserve": "calls=2,rejected_calls=0,failed_calls=1",
	} {
		v := f["cmdstat_"+name]
		require.Regexp(t, `^calls=\d+,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=\d+,failed_calls=\d+$`, v, name)
		got := regexp.MustCompile(`,usec=\d+,usec_per_call=[0-9.]+`).ReplaceAllString(v, "")
		assert.Equal(t, want, got, name)
		assert.Regexp(t, `^p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}$`, f["latency_percentiles_usec_"+name], name)
	}
	assert.Equal(t, "count=4", f["errorstat_ERR"]) // arity, unknown, full, exists
	assert.Equal(t, "4", f["total_error_replies"])
	assert.Equal(t, "4", f["bloom_keys_added"]) // a, b, x, y
	assert.Equal(t, "2", f["bloom_filters"])
	assert.NotContains(t, f, "cmdstat_nosuchcommand")
}

func TestCommandStatsNoAuth(t *testing.T) {
	_, addr := startServer(t, Config{Password: "pw"})
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer nc.Close()
	r := bufio.NewReader(nc)
	_, err = nc.Write([]byte("BF.ADD k v\r\nAUTH nope\r\nAUTH pw\r\nINFO commandstats\r\nINFO errorstats\r\n"))
	require.NoError(t, err)
	for _, want := range []string{"-NOAUTH", "-WRONGPASS", "+OK"} {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(line, want), "%q", line)
	}
	stats := readBulk(t, r) + readBulk(t, r)
	assert.Contains(t, stats, "cmdstat_bf.add:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n")
	assert.Contains(t, stats, "cmdstat_auth:calls=2,")
	assert.Contains(t, stats, "errorstat_NOAUTH:count=1\r\n")
	assert.Contains(t, stats, "errorstat_WRONGPASS:count=1\r\n")
}

// readBulk reads one bulk string reply.
func readBulk(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "$"), "%q", line)
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	require.NoError(t, err)
	buf := make([]byte, n+2)
	_, err = io.ReadFull(r, buf)
	require.NoError(t, err)
	return string(buf[:n])
}

func TestSlowlog(t *testing.T) {
	s, addr := startServer(t, Config{})
	require.NoError(t, s.SetConfig("slowlog-log-slower-than", "0"))
	require.NoError(t, s.SetConfig("slowlog-max-len", "3"))
	rdb := dial2(t, addr)
	c := ctx(t)
	require.NoError(t, rdb.Do(c, "CLIENT", "SETNAME", "crawler").Err())
	long := strings.Repeat("u", 200)
	require.NoError(t, rdb.Do(c, "BF.ADD", "seen", long).Err())
	many := []any{"BF.MADD", "seen"}
	for i := range 40 {
		many = append(many, strconv.Itoa(i))
	}
	require.NoError(t, rdb.Do(c, many...).Err())
	assert.Error(t, rdb.Do(c, "AUTH", "secret").Err())
	assert.EqualValues(t, 3, do(t, rdb, "SLOWLOG", "LEN"))

	got := do(t, rdb, "SLOWLOG", "GET", "-1").([]any)
	require.Len(t, got, 3) // slowlog-max-len: the newest 3, newest first
	first := got[0].([]any)
	assert.Equal(t, []any{"SLOWLOG", "LEN"}, first[3])
	assert.Equal(t, "crawler", first[5])
	assert.Equal(t, rdb.Do(c, "CLIENT", "INFO").Val().(string)[0:0]+localAddrOf(t, rdb), first[4])
	assert.Equal(t, []any{"AUTH", "(redacted)"}, got[1].([]any)[3])
	madd := got[2].([]any)[3].([]any)
	require.Len(t, madd, 32)
	assert.Equal(t, "... (11 more arguments)", madd[31])
	id0 := first[0].(int64)
	assert.Equal(t, id0-1, got[1].([]any)[0].(int64))

	require.NoError(t, s.SetConfig("slowlog-max-len", "10"))
	require.NoError(t, rdb.Do(c, "BF.ADD", "seen", long).Err())
	arg := do(t, rdb, "SLOWLOG", "GET", "1").([]any)[0].([]any)[3].([]any)[2]
	assert.Equal(t, strings.Repeat("u", 128)+"... (72 more bytes)", arg)

	assert.Equal(t, "OK", do(t, rdb, "SLOWLOG", "RESET"))
	assert.EqualValues(t, 1, do(t, rdb, "SLOWLOG", "LEN")) // RESET itself, logged after it ran
	assert.Equal(t, "ERR count should be greater than or equal to -1", do(t, rdb, "SLOWLOG", "GET", "-2"))
	assert.Equal(t, "ERR unknown subcommand 'NOPE'. Try SLOWLOG HELP.", do(t, rdb, "SLOWLOG", "NOPE"))
	assert.Equal(t, "ERR wrong number of arguments for 'slowlog|len' command", do(t, rdb, "SLOWLOG", "LEN", "x"))
	require.NoError(t, s.SetConfig("slowlog-log-slower-than", "-1"))
	require.NoError(t, rdb.Do(c, "SLOWLOG", "RESET").Err())
	require.NoError(t, rdb.Do(c, "PING").Err())
	assert.EqualValues(t, 0, do(t, rdb, "SLOWLOG", "LEN"))
	assert.Error(t, s.SetConfig("slowlog-max-len", "-1"))
	assert.Error(t, s.SetConfig("latency-tracking", "maybe"))
}

// localAddrOf returns the address the server sees rdb's connection
// from, by CLIENT INFO.
func localAddrOf(t *testing.T, rdb *redis.Client) string {
	line := do(t, rdb, "CLIENT", "INFO").(string)
	m := regexp.MustCompile(` addr=(\S+) `).FindStringSubmatch(line)
	require.NotNil(t, m, line)
	return m[1]
}

func TestLatencyHistogramAndMonitor(t *testing.T) {
	s, addr := startServer(t, Config{})
	rdb := dial2(t, addr)
	c := ctx(t)
	for range 5 {
		require.NoError(t, rdb.Do(c, "BF.ADD", "k", "v").Err())
	}
	got := do(t, rdb, "LATENCY", "HISTOGRAM", "bf.add", "nosuch").([]any)
	require.Len(t, got, 2)
	assert.Equal(t, "bf.add", got[0])
	h := got[1].([]any)
	require.Len(t, h, 4)
	assert.Equal(t, []any{"calls", int64(5), "histogram_usec"}, h[:3])
	buckets := h[3].([]any)
	require.NotEmpty(t, buckets)
	assert.Equal(t, int64(5), buckets[len(buckets)-1], "cumulative: the last bucket holds every call")
	for i := 0; i+2 < len(buckets); i += 2 {
		assert.Less(t, buckets[i].(int64), buckets[i+2].(int64))
		assert.Less(t, buckets[i+1].(int64), buckets[i+3].(int64))
	}
	all := do(t, rdb, "LATENCY", "HISTOGRAM").([]any)
	assert.Contains(t, all, "bf.add")

	assert.Equal(t, []any{}, do(t, rdb, "LATENCY", "LATEST")) // latency-monitor-threshold 0: off
	bfAdd, ping := latencyEvent(s.cmds.lookupFull("bf.add")), latencyEvent(s.cmds.lookupFull("ping"))
	s.obs.mon.Add(bfAdd, 100, 12)
	s.obs.mon.Add(bfAdd, 100, 30)
	s.obs.mon.Add(ping, 100, 7)
	latest := do(t, rdb, "LATENCY", "LATEST").([]any)
	require.Len(t, latest, 2)
	cmd, fast := latest[0].([]any), latest[1].([]any)
	assert.Equal(t, []any{"command", int64(100), int64(30), int64(30)}, cmd) // one sample a second: the larger
	assert.Equal(t, []any{"fast-command", int64(100), int64(7), int64(7)}, fast)
	assert.Equal(t, []any{[]any{int64(100), int64(30)}}, do(t, rdb, "LATENCY", "HISTORY", "COMMAND"))
	assert.EqualValues(t, 1, do(t, rdb, "LATENCY", "RESET", "command", "nosuch"))
	assert.EqualValues(t, 1, do(t, rdb, "LATENCY", "RESET"))
	assert.Equal(t, []any{}, do(t, rdb, "LATENCY", "LATEST"))

	require.NoError(t, s.SetConfig("latency-monitor-threshold", "1"))
	require.NoError(t, s.SetConfig("latency-tracking", "no"))
	require.NoError(t, rdb.Do(c, "BF.ADD", "k", "w").Err())
	assert.Equal(t, "calls", do(t, rdb, "LATENCY", "HISTOGRAM", "bf.add").([]any)[1].([]any)[0])
	assert.EqualValues(t, 5, do(t, rdb, "LATENCY", "HISTOGRAM", "bf.add").([]any)[1].([]any)[1], "not tracked")
}

func TestClientListInfoKill(t *testing.T) {
	_, addr := startServer(t, Config{})
	a, b := dial2(t, addr), dial2(t, addr)
	c := ctx(t)
	require.NoError(t, a.Do(c, "CLIENT", "SETNAME", "alpha").Err())
	require.NoError(t, b.Do(c, "PING").Err())
	idB := do(t, b, "CLIENT", "ID").(int64)
	list := do(t, a, "CLIENT", "LIST").(string)
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	require.Len(t, lines, 2)
	fields := regexp.MustCompile(`^id=\d+ addr=\S+ laddr=\S+ fd=\d+ name=\S* age=\d+ idle=\d+ flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 ` +
		`qbuf=\d+ qbuf-free=\d+ argv-mem=\d+ multi-mem=\d+ rbs=\d+ rbp=\d+ obl=\d+ oll=\d+ omem=\d+ tot-mem=\d+ events=r cmd=\S+ user=default redir=-1 resp=2$`)
	for _, l := range lines {
		assert.Regexp(t, fields, l)
	}
	assert.Contains(t, lines[0], " name=alpha ")
	assert.Contains(t, lines[0], " cmd=client|list ")
	assert.Contains(t, lines[1], fmt.Sprintf("id=%d ", idB))
	assert.Contains(t, lines[1], " cmd=client|id ")
	self := do(t, a, "CLIENT", "INFO").(string)
	assert.Regexp(t, fields, strings.TrimSuffix(self, "\n"))
	one := do(t, a, "CLIENT", "LIST", "ID", strconv.FormatInt(idB, 10)).(string)
	assert.Equal(t, 1, strings.Count(one, "\n"))
	assert.Equal(t, "", do(t, a, "CLIENT", "LIST", "TYPE", "pubsub"))
	assert.Equal(t, "ERR Unknown client type 'x'", do(t, a, "CLIENT", "LIST", "TYPE", "x"))

	// MULTI shows in another client's list.
	require.NoError(t, b.Do(c, "MULTI").Err())
	require.NoError(t, b.Do(c, "PING").Err())
	list = do(t, a, "CLIENT", "LIST", "ID", strconv.FormatInt(idB, 10)).(string)
	assert.Contains(t, list, " flags=x ")
	assert.Contains(t, list, " multi=1 ")

	assert.EqualValues(t, 0, do(t, a, "CLIENT", "KILL", "ID", "999999"))
	assert.Equal(t, "ERR No such client", do(t, a, "CLIENT", "KILL", "127.0.0.1:1"))
	assert.Equal(t, "ERR client-id should be greater than 0", do(t, a, "CLIENT", "KILL", "ID", "0"))
	assert.Equal(t, "ERR No such user 'nobody'", do(t, a, "CLIENT", "KILL", "USER", "nobody"))
	assert.Equal(t, "ERR No such client", do(t, a, "CLIENT", "KILL", "ID")) // the old form: an address
	assert.Equal(t, "ERR syntax error", do(t, a, "CLIENT", "KILL", "ID", "1", "SKIPME"))
	assert.EqualValues(t, 1, do(t, a, "CLIENT", "KILL", "ID", strconv.FormatInt(idB, 10)))
	require.Eventually(t, func() bool {
		return strings.Count(do(t, a, "CLIENT", "LIST").(string), "\n") == 1
	}, time.Minute, 10*time.Millisecond)
	// USER default, SKIPME yes (default): nobody else is left.
	assert.EqualValues(t, 0, do(t, a, "CLIENT", "KILL", "USER", "default"))
	assert.EqualValues(t, 1, do(t, a, "CLIENT", "KILL", "USER", "default", "SKIPME", "no"))
}

func TestMemoryResidency(t *testing.T) {
	_, addr := startServer(t, Config{DefaultExpansion: 0})
	rdb := dial2(t, addr)
	c := ctx(t)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "fixed", "0.01", "100000", "NONSCALING").Err())
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "set", "0.01", "1000").Err())
	for i := range 100 {
		require.NoError(t, rdb.Do(c, "BF.ADD", "fixed", i).Err())
		require.NoError(t, rdb.Do(c, "BF.ADD", "set", i).Err())
	}
	f := infoOf(t, rdb, "memory", "bloom")
	mapped, err := strconv.ParseInt(f["filters_mapped_bytes"], 10, 64)
	require.NoError(t, err)
	resident, err := strconv.ParseInt(f["filters_resident_bytes"], 10, 64)
	require.NoError(t, err)
	assert.Positive(t, mapped)
	assert.Positive(t, resident, "written pages are in the page cache")
	assert.Equal(t, f["filters_mapped_bytes"], f["bloom_mapped_bytes"])
	assert.Equal(t, "2", f["bloom_open_filters"])
	assert.Equal(t, "1", f["bloom_fixed_filters"])
	assert.Equal(t, "1", f["bloom_sets"])
	assert.Equal(t, "200", f["bloom_open_items"])
	assert.Equal(t, "200", f["bloom_keys_added"])
	for _, k := range []string{"used_memory", "used_memory_rss", "used_memory_peak", "total_system_memory"} {
		v, err := strconv.ParseInt(f[k], 10, 64)
		require.NoError(t, err, k)
		assert.Positive(t, v, k)
	}
}
