package obs

import (
	"cmp"
	"slices"
	"sync"
)

// LatencyMonitor is Redis's latency monitor: per event (the server's
// "command" and "fast-command"), the latest samples of the calls that
// took at least latency-monitor-threshold ms, one a second (the larger
// kept), at most latencySamples of them, and the largest since the
// event was last reset. Event names are matched exactly.
type LatencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencySeries
}

// latencySamples is Redis's LATENCY_TS_LEN.
const latencySamples = 160

type latencySeries struct {
	samples []LatencySample // oldest first
	max     int64           // ms, of every sample since the event was made
}

// LatencySample is one second's slowest call of an event.
type LatencySample struct {
	Unix int64 // the second, since 1970
	Ms   int64 // how long the call took, ms
}

// LatencyEvent is an event's latest sample and its largest, as LATENCY
// LATEST answers them.
type LatencyEvent struct {
	Name   string
	Latest LatencySample
	Max    int64 // ms
}

// Add records that a call of event took ms milliseconds at second
// unix: a sample of its own, or the larger of two in the second of the
// latest sample.
func (m *LatencyMonitor) Add(event string, unix, ms int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencySeries{}
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	if n := len(ts.samples); n > 0 && ts.samples[n-1].Unix == unix {
		ts.samples[n-1].Ms = max(ts.samples[n-1].Ms, ms)
		return
	}
	ts.samples = append(ts.samples, LatencySample{unix, ms})
	if len(ts.samples) > latencySamples {
		ts.samples = ts.samples[1:]
	}
}

// Latest returns every event's latest sample and largest, by name in
// order.
func (m *LatencyMonitor) Latest() []LatencyEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]LatencyEvent, 0, len(m.events))
	for name, ts := range m.events {
		out = append(out, LatencyEvent{Name: name, Latest: ts.samples[len(ts.samples)-1], Max: ts.max})
	}
	slices.SortFunc(out, func(a, b LatencyEvent) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// History returns a copy of event's samples, oldest first; none for an
// event without samples.
func (m *LatencyMonitor) History(event string) []LatencySample {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ts := m.events[event]; ts != nil {
		return slices.Clone(ts.samples)
	}
	return nil
}

// Reset drops the events named, or every event when none are named,
// and returns how many it dropped.
func (m *LatencyMonitor) Reset(events ...string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, e := range events {
		if _, ok := m.events[e]; ok {
			delete(m.events, e)
			n++
		}
	}
	return n
}
