package obs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// TestLatencyMonitor: one sample a second (the larger kept), events by
// name, the largest since the event began, Reset of some or all.
func TestLatencyMonitor(t *testing.T) {
	var m obs.LatencyMonitor
	assert.Empty(t, m.Latest())
	m.Add("command", 100, 12)
	m.Add("command", 100, 30)
	m.Add("command", 100, 20)
	m.Add("fast-command", 100, 7)
	m.Add("command", 101, 5)
	assert.Equal(t, []obs.LatencyEvent{
		{Name: "command", Latest: obs.LatencySample{Unix: 101, Ms: 5}, Max: 30},
		{Name: "fast-command", Latest: obs.LatencySample{Unix: 100, Ms: 7}, Max: 7},
	}, m.Latest())
	hist := m.History("command")
	assert.Equal(t, []obs.LatencySample{{Unix: 100, Ms: 30}, {Unix: 101, Ms: 5}}, hist)
	hist[0].Ms = 0
	assert.EqualValues(t, 30, m.History("command")[0].Ms, "History is a copy")
	assert.Empty(t, m.History("COMMAND"), "names match exactly")

	assert.Equal(t, 1, m.Reset("command", "nosuch", "command"))
	assert.Empty(t, m.History("command"))
	assert.Equal(t, 1, m.Reset())
	assert.Empty(t, m.Latest())
	assert.Equal(t, 0, m.Reset())
}

// TestLatencyMonitorBound: at most 160 samples (Redis's LATENCY_TS_LEN),
// the oldest dropped; the largest stays even when its sample is gone.
func TestLatencyMonitorBound(t *testing.T) {
	var m obs.LatencyMonitor
	m.Add("command", 0, 1000)
	for s := int64(1); s <= 200; s++ {
		m.Add("command", s, s)
	}
	h := m.History("command")
	require.Len(t, h, 160)
	assert.Equal(t, obs.LatencySample{Unix: 41, Ms: 41}, h[0])
	assert.Equal(t, obs.LatencySample{Unix: 200, Ms: 200}, h[159])
	assert.EqualValues(t, 1000, m.Latest()[0].Max)
}
