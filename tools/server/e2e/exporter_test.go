package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/metrics"
)

// redisExporter returns the path of oliver006/redis_exporter
// ($MMAPBLOOM_REDIS_EXPORTER, else redis_exporter on PATH; .ci/run
// builds the pinned version of .ci/redis_exporter). With CI=true a
// missing one fails the test; elsewhere the test is skipped.
func redisExporter(t *testing.T) string {
	t.Helper()
	p := os.Getenv("MMAPBLOOM_REDIS_EXPORTER")
	if p == "" {
		var err error
		if p, err = exec.LookPath("redis_exporter"); err != nil {
			msg := "redis_exporter not found: (cd .ci/redis_exporter && go build -o /usr/local/bin/redis_exporter github.com/oliver006/redis_exporter)"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return p
}

// freeAddr returns a free address of 127.0.0.1 reserved for the test
// (testkit.FreeAddr: below the ephemeral range, so that no client's
// source port takes it before the program given it listens).
func freeAddr(t *testing.T) string { return testkit.FreeAddr(t) }

// scrapeText fetches url and parses it with Prometheus's text parser.
func scrapeText(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := metrics.Scrape(url)
	require.NoError(t, err)
	return fams
}

// metric returns family name's metric whose labels include label=v
// (any metric when label is ""), nil when there is none.
func metric(fams map[string]*dto.MetricFamily, name, label, v string) *dto.Metric {
	for _, m := range fams[name].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == label && lp.GetValue() == v {
				return m
			}
		}
		if label == "" {
			return m
		}
	}
	return nil
}

// TestRedisExporter runs oliver006/redis_exporter against `serve` after
// a known load and checks its command, error, latency, memory, client
// and keyspace metrics, and serve's own /metrics beside them.
func TestRedisExporter(t *testing.T) {
	exporter := redisExporter(t)
	metricsAddr := freeAddr(t)
	srv := startServe(t, t.TempDir(), nil, "--metrics-addr", metricsAddr, "--slowlog-log-slower-than", "0")
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, Protocol: 2, DisableIdentity: true, PoolSize: 1,
		DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second})
	defer rdb.Close()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "seen", "0.01", "1000", "NONSCALING").Err())
	for _, k := range []string{"a", "b", "c", "a", "b"} {
		require.NoError(t, rdb.Do(c, "BF.ADD", "seen", k).Err())
	}
	for range 7 {
		require.NoError(t, rdb.Do(c, "BF.EXISTS", "seen", "a").Err())
	}
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "grown", "0.01", "100").Err())
	require.Error(t, rdb.Do(c, "BF.ADD", "seen").Err())                   // rejected: arity
	require.Error(t, rdb.Do(c, "NOSUCHCOMMAND").Err())                    // ERR, no command
	require.Error(t, rdb.Do(c, "BF.RESERVE", "seen", "0.01", "10").Err()) // failed: exists

	webAddr := freeAddr(t)
	cmd := testkit.Process(t, exporter, "-redis.addr", "redis://"+srv.addr, "-web.listen-address", webAddr)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := "http://" + webAddr + "/metrics"
	require.Eventually(t, func() bool { // /health: a scrape would run commands
		resp, err := http.Get("http://" + webAddr + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, 2*time.Minute, 50*time.Millisecond, "redis_exporter does not listen")
	fams := scrapeText(t, url)
	val := func(name, label, v string) float64 {
		t.Helper()
		m := metric(fams, name, label, v)
		require.NotNil(t, m, "%s{%s=%q}", name, label, v)
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
		return m.GetUntyped().GetValue()
	}
	assert.EqualValues(t, 1, val("redis_up", "", ""))
	assert.EqualValues(t, 5, val("redis_commands_total", "cmd", "bf.add"))
	assert.EqualValues(t, 7, val("redis_commands_total", "cmd", "bf.exists"))
	assert.EqualValues(t, 1, val("redis_commands_rejected_calls_total", "cmd", "bf.add"))
	assert.EqualValues(t, 1, val("redis_commands_failed_calls_total", "cmd", "bf.reserve"))
	assert.EqualValues(t, 3, val("redis_errors_total", "err", "ERR"))
	assert.EqualValues(t, 2, val("redis_db_keys", "db", "db0"))
	assert.GreaterOrEqual(t, val("redis_connected_clients", "", ""), 2.0) // this test's and the exporter's
	assert.Positive(t, val("redis_memory_used_bytes", "", ""))
	assert.Positive(t, val("redis_memory_used_rss_bytes", "", ""))
	assert.Positive(t, val("redis_slowlog_length", "", ""))
	sum := metric(fams, "redis_latency_percentiles_usec", "cmd", "bf.add")
	require.NotNil(t, sum, "latencystats")
	require.NotNil(t, sum.Summary)
	assert.Len(t, sum.Summary.Quantile, 3) // p50, p99, p99.9
	hist := metric(fams, "redis_commands_latencies_usec", "cmd", "bf.exists")
	require.NotNil(t, hist, "LATENCY HISTOGRAM")
	assert.EqualValues(t, 7, hist.GetHistogram().GetSampleCount())

	// serve's own endpoint, beside.
	own := scrapeText(t, "http://"+metricsAddr+"/metrics")
	m := metric(own, "mmapbloom_commands_total", "cmd", "bf.add")
	require.NotNil(t, m)
	assert.EqualValues(t, 5, m.GetCounter().GetValue())
	t.Logf("errors after the exporter's scrape: %s", rdb.Info(c, "errorstats", "commandstats").Val())
	m = metric(own, "mmapbloom_keys_added_total", "", "")
	require.NotNil(t, m)
	assert.EqualValues(t, 3, m.GetCounter().GetValue())
	assert.True(t, strings.Contains(strings.Join(srv.early, "\n"), fmt.Sprintf("metrics on http://%s/metrics", metricsAddr)), "%v", srv.early)
}
