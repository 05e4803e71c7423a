package metrics

import (
	"context"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/server"
)

// start runs a server and its metrics endpoint on free ports of
// 127.0.0.1 until the test ends; it returns the RESP address and the
// /metrics URL.
func start(t *testing.T) (string, string) {
	t.Helper()
	srv, err := server.New(server.Config{Dir: t.TempDir(), Log: log.New(io.Discard, "", 0), FilterIdle: -1})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ep := Serve(mln, srv)
	t.Cleanup(func() {
		require.NoError(t, ep.Close())
		require.NoError(t, srv.Shutdown())
		require.NoError(t, <-done)
	})
	return ln.Addr().String(), "http://" + mln.Addr().String() + "/metrics"
}

// scrape parses url's text exposition with Prometheus's own parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := Scrape(url)
	require.NoError(t, err)
	return fams
}

// value returns the value of family name's metric with the label pairs
// given (name, value, ...), failing when there is none.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	t.Helper()
	fam := fams[name]
	require.NotNil(t, fam, "no family %s", name)
next:
	for _, m := range fam.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.Label {
				found = found || (lp.GetName() == labels[i] && lp.GetValue() == labels[i+1])
			}
			if !found {
				continue next
			}
		}
		return m
	}
	require.Failf(t, "no metric", "%s %v", name, labels)
	return nil
}

func TestMetricsAfterLoad(t *testing.T) {
	addr, url := start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, ReadTimeout: time.Minute, PoolSize: 1})
	defer rdb.Close()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "fixed", "0.01", "1000", "NONSCALING").Err())
	for _, k := range []string{"a", "b", "a", "c"} {
		require.NoError(t, rdb.Do(c, "BF.ADD", "fixed", k).Err())
	}
	pipe := rdb.Pipeline()
	for range 20 {
		pipe.Do(c, "BF.EXISTS", "fixed", "a")
	}
	_, err := pipe.Exec(c)
	require.NoError(t, err)
	require.NoError(t, rdb.Do(c, "BF.RESERVE", "grown", "0.01", "100").Err()) // a scaling set
	require.NoError(t, rdb.Do(c, "BF.ADD", "grown", "x").Err())
	require.Error(t, rdb.Do(c, "NOSUCH").Err())
	require.Error(t, rdb.Do(c, "BF.ADD", "fixed").Err())

	fams := scrape(t, url)
	assert.EqualValues(t, 5, value(t, fams, "mmapbloom_commands_total", "cmd", "bf.add").GetCounter().GetValue())
	assert.EqualValues(t, 1, value(t, fams, "mmapbloom_commands_rejected_total", "cmd", "bf.add").GetCounter().GetValue())
	assert.EqualValues(t, 20, value(t, fams, "mmapbloom_commands_total", "cmd", "bf.exists").GetCounter().GetValue())
	assert.EqualValues(t, 2, value(t, fams, "mmapbloom_errors_total", "err", "ERR").GetCounter().GetValue())
	assert.EqualValues(t, 2, value(t, fams, "mmapbloom_error_replies_total").GetCounter().GetValue())
	assert.EqualValues(t, 4, value(t, fams, "mmapbloom_keys_added_total").GetCounter().GetValue()) // a, b, c, x
	assert.EqualValues(t, 1, value(t, fams, "mmapbloom_filters", "kind", "fixed").GetGauge().GetValue())
	assert.EqualValues(t, 1, value(t, fams, "mmapbloom_filters", "kind", "set").GetGauge().GetValue())
	assert.EqualValues(t, 2, value(t, fams, "mmapbloom_open_filters").GetGauge().GetValue())
	assert.EqualValues(t, 4, value(t, fams, "mmapbloom_open_items").GetGauge().GetValue())
	assert.Positive(t, value(t, fams, "mmapbloom_mapped_bytes").GetGauge().GetValue())
	assert.Positive(t, value(t, fams, "mmapbloom_resident_bytes").GetGauge().GetValue())
	// Health: both open keys sampled by the scrape, neither over capacity,
	// both far below their target p (3 and 1 items in 1,000 and 100).
	assert.EqualValues(t, 2, value(t, fams, "mmapbloom_health_sampled_keys").GetGauge().GetValue())
	assert.Zero(t, value(t, fams, "mmapbloom_keys_over_capacity").GetGauge().GetValue())
	ratio := value(t, fams, "mmapbloom_estimated_fpr_ratio").GetHistogram()
	assert.EqualValues(t, 2, ratio.GetSampleCount())
	require.Len(t, ratio.Bucket, 6) // 0.5, 1, 2, 5, 10, +Inf
	assert.InDelta(t, 0.5, ratio.Bucket[0].GetUpperBound(), 0)
	assert.EqualValues(t, 2, ratio.Bucket[0].GetCumulativeCount())
	assert.Less(t, ratio.GetSampleSum(), 0.01)
	assert.GreaterOrEqual(t, value(t, fams, "mmapbloom_connected_clients").GetGauge().GetValue(), 1.0)
	assert.Zero(t, value(t, fams, "mmapbloom_sync_failing").GetGauge().GetValue(), "no Sync failed")
	assert.Zero(t, value(t, fams, "mmapbloom_sync_errors_total").GetCounter().GetValue())
	assert.Contains(t, fams, "mmapbloom_syncs_total")
	assert.Positive(t, value(t, fams, "mmapbloom_last_save_timestamp_seconds").GetGauge().GetValue())

	h := value(t, fams, "mmapbloom_command_latency_seconds", "cmd", "bf.exists").GetHistogram()
	assert.EqualValues(t, 20, h.GetSampleCount())
	require.Len(t, h.Bucket, 22) // 2^10 ns to 2^30 ns, and +Inf
	assert.InDelta(t, 1024e-9, h.Bucket[0].GetUpperBound(), 1e-15)
	for i := 1; i < len(h.Bucket); i++ {
		assert.LessOrEqual(t, h.Bucket[i-1].GetCumulativeCount(), h.Bucket[i].GetCumulativeCount())
	}
	assert.Positive(t, h.GetSampleSum())
	assert.NotContains(t, fams, "mmapbloom_replication_lag_seconds", "a primary has no lag")
	assert.Positive(t, value(t, fams, "mmapbloom_filesystem_free_bytes", "dir", "data").GetGauge().GetValue())
	assert.Positive(t, value(t, fams, "mmapbloom_filesystem_used_bytes", "dir", "data").GetGauge().GetValue())
	assert.NotContains(t, fams, "mmapbloom_log_applied_sequence", "no log")
	assert.Contains(t, fams, "go_goroutines")
	assert.Contains(t, fams, "process_cpu_seconds_total")
}

// TestNoPrometheusInLibrary checks that the library, the format package
// and the server compile no Prometheus package: only this package does.
func TestNoPrometheusInLibrary(t *testing.T) {
	deps := func(pkgs ...string) string {
		out, err := testkit.Command(t, "go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	root := "github.com/mmapbloom/mmapbloom/"
	for _, pkg := range []string{root + "mmapbloom/...", root + "format/...", root + "tools/server"} {
		assert.NotContains(t, deps(pkg), "prometheus", "go list -deps %s", pkg)
	}
	assert.Contains(t, deps(root+"tools/metrics"), "github.com/prometheus/client_golang/prometheus\n")
	// A program importing only the library and the format package.
	out := deps(root+"mmapbloom", root+"format")
	assert.False(t, strings.Contains(out, "prometheus"), "library users compile no prometheus package")
}

// TestLeaseMetrics: a node with failover exports its keeper's renewal
// tries as a histogram, the failed ones and the leases given up; a node
// without exports none of them.
func TestLeaseMetrics(t *testing.T) {
	st := server.Stats{Failover: true, LeaseRenewalBoundsSeconds: []float64{0.001, 0.002}, LeaseRenewalCounts: []uint64{3, 4},
		LeaseRenewalCount: 5, LeaseRenewalSumSeconds: 2.5, LeaseRenewalFailures: 1, LeaseStepDowns: 2}
	fams := gather(t, st)
	h := value(t, fams, "mmapbloom_lease_renewal_seconds").GetHistogram()
	assert.EqualValues(t, 5, h.GetSampleCount())
	assert.InDelta(t, 2.5, h.GetSampleSum(), 1e-9)
	require.Len(t, h.Bucket, 2)
	assert.EqualValues(t, 4, h.Bucket[1].GetCumulativeCount())
	assert.EqualValues(t, 1, value(t, fams, "mmapbloom_lease_renewal_failures_total").GetCounter().GetValue())
	assert.EqualValues(t, 2, value(t, fams, "mmapbloom_lease_stepdowns_total").GetCounter().GetValue())

	st.Failover = false
	assert.NotContains(t, gather(t, st), "mmapbloom_lease_renewal_seconds")
}

// gather collects st's metrics by family name.
func gather(t *testing.T, st server.Stats) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(&Collector{stats: func() server.Stats { return st }})
	fams, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// TestLogMetrics: each followed stream's applied sequence, lag, stopped
// state, apply errors, rewinds and stalls (no lag when its last sequence is unknown),
// each shard's lease holder as 1 beside 0 for the other nodes, and the
// file systems' free and used bytes.
func TestLogMetrics(t *testing.T) {
	st := server.Stats{Failover: true, LeaseNodes: []string{"node1", "node2"}, LeaseHolders: map[string]string{"node1": "node2"},
		Streams: []server.StreamStats{
			{Name: "MBF_LOG_00", Applied: 7, Last: 10, LastKnown: true, Stopped: true, ApplyErrors: 3, Rewinds: 2, Stalls: 4},
			{Name: "MBF_LOG_01", Applied: 5, LastKnown: false},
		},
		FileSystems: []server.FSStats{{Dir: "data", Free: 100, Used: 50}, {Dir: "log", Free: 200, Used: 20}}}
	fams := gather(t, st)
	for _, tc := range []struct {
		name, stream string
		want         float64
	}{
		{"mmapbloom_log_applied_sequence", "MBF_LOG_00", 7},
		{"mmapbloom_log_lag_entries", "MBF_LOG_00", 3},
		{"mmapbloom_log_stopped", "MBF_LOG_00", 1},
		{"mmapbloom_log_apply_errors_total", "MBF_LOG_00", 3},
		{"mmapbloom_log_rewinds_total", "MBF_LOG_00", 2},
		{"mmapbloom_log_stalls_total", "MBF_LOG_00", 4},
		{"mmapbloom_log_applied_sequence", "MBF_LOG_01", 5},
		{"mmapbloom_log_stopped", "MBF_LOG_01", 0},
	} {
		m := value(t, fams, tc.name, "stream", tc.stream)
		assert.InDelta(t, tc.want, m.GetGauge().GetValue()+m.GetCounter().GetValue(), 0, "%s %s", tc.name, tc.stream)
	}
	assert.Len(t, fams["mmapbloom_log_lag_entries"].Metric, 1, "no lag where the last sequence is unknown")
	assert.EqualValues(t, 1, value(t, fams, "mmapbloom_lease_holder", "shard", "node1", "node", "node2").GetGauge().GetValue())
	assert.EqualValues(t, 0, value(t, fams, "mmapbloom_lease_holder", "shard", "node1", "node", "node1").GetGauge().GetValue())
	assert.EqualValues(t, 100, value(t, fams, "mmapbloom_filesystem_free_bytes", "dir", "data").GetGauge().GetValue())
	assert.EqualValues(t, 20, value(t, fams, "mmapbloom_filesystem_used_bytes", "dir", "log").GetGauge().GetValue())

	st.Failover = false
	assert.NotContains(t, gather(t, st), "mmapbloom_lease_holder")
}
