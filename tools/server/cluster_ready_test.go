package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/replication/lease/leasetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterStateServed: CLUSTER INFO's cluster_state is ok, and
// mmapbloom_serving (INFO cluster: mbf_serving) 1, only while every
// slot's owner holds its lease and has drained, so a client that waits
// for them gets its first write served, not CLUSTERDOWN: not before the
// node took its lease, and not once its lease lapsed unrenewed.
func TestClusterStateServed(t *testing.T) {
	const ttl = time.Minute // long: the injected clock, not the bucket's expiry, decides
	kv := &leasetest.Cuttable{KV: leasetest.Embedded(t, ttl)}
	kv.SetCut(true) // the node cannot take its lease yet
	clk := newStepClock()
	tc := startCluster(t, []string{"0-16383"}, func(c *Config) {
		c.Failover = &Failover{KV: kv, TTL: ttl, Clock: clk}
	})
	c := ctx(t)
	n1 := dial(t, tc.addrs[0], "")
	require.Eventually(t, clk.idle, time.Minute, 10*time.Millisecond, "the keeper's first round ran")
	const down = "CLUSTERDOWN The cluster is down"
	state := func(want string) {
		t.Helper()
		info := n1.Do(c, "CLUSTER", "INFO").Val().(string)
		assert.Contains(t, info, "cluster_state:"+want)
		serving := map[string]string{"ok": "1", "fail": "0"}[want]
		assert.Contains(t, info, "mmapbloom_serving:"+serving)
		assert.Contains(t, n1.Info(c, "cluster").Val(), "mbf_serving:"+serving)
	}
	state("fail")
	assert.Equal(t, down, errText(n1.Do(c, "BF.ADD", "k", "a").Err()))

	kv.SetCut(false)
	require.Eventually(t, func() bool {
		clk.fire()
		return infoField(n1.Do(c, "CLUSTER", "INFO").Val().(string), "cluster_state") == "ok"
	}, time.Minute, 50*time.Millisecond, "the node takes its lease")
	require.NoError(t, n1.Do(c, "BF.ADD", "k", "a").Err(), "cluster_state:ok: the first write is served")
	state("ok")
	require.True(t, tc.srvs[0].Stats().Failover)
	require.Eventually(t, func() bool {
		clk.fire()
		return tc.srvs[0].Stats().LeaseRenewalCount > 0
	}, time.Minute, 50*time.Millisecond, "the renewal tries are counted")
	assert.NotEqual(t, "0", infoField(n1.Info(c, "cluster").Val(), "mbf_lease_renewals"))

	require.Eventually(t, clk.idle, time.Minute, 10*time.Millisecond, "the keeper waits for its next round")
	clk.advance(ttl - ttl/4) // no round ran meanwhile: the lease lapsed here
	state("fail")
	assert.Equal(t, down, errText(n1.Do(c, "BF.ADD", "k", "b").Err()))
}

// infoField returns field's value in an INFO-style text, "" when absent.
func infoField(info, field string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), field+":"); ok {
			return v
		}
	}
	return ""
}
