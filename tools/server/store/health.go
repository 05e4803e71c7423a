package store

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// A key's health (MBF.HEALTH, INFO bloom's health fields, Stats', which
// tools/server renders): its fill ratio, estimated cardinality and
// false-positive rate, per layer, from a sample of each layer's bit
// array (mmapbloom.Filter.SampleStats) cached on the open key's Entry
// with the time it was taken. A sample reads HealthLines 64-byte lines
// of each layer, never a whole array.
const (
	// HealthLines is the lines (64 bytes, a blocked512 block) sampled per
	// layer: 64 KiB read, a fill ratio within about 0.0007 (classic) or
	// 0.0016 (blocked512) of the exact pass at one standard error.
	HealthLines = 1024
	// HealthMaxAge is how long a key's sample stays the answer.
	HealthMaxAge = 10 * time.Second
)

// ErrHealthUnsupported is returned by Entry.Sampled for a filter of a
// Sets backend that cannot sample its layers.
var ErrHealthUnsupported = errors.New("MBF.HEALTH: this filter cannot be sampled")

// sampledSet is a set that can sample its layers and tell its target
// (the library's sets, through Set).
type sampledSet interface {
	SampleStats(lines int, seed uint64) ([]mmapbloom.Stats, error)
	Info() (mmapbloom.SetInfo, error)
}

// Health is one sample of a key: its layers' SampleStats, oldest first,
// and the key's own figures.
type Health struct {
	At       time.Time // when it was taken
	P        float64   // the key's false-positive target (a set's, a fixed filter's header's); 0: none
	Capacity uint64
	Items    uint64 // the header count (BF.CARD)
	Layers   []mmapbloom.Stats
}

// sampleHealth samples b's layers with seed.
func sampleHealth(b Bloom, seed uint64, now time.Time) (*Health, error) {
	h := &Health{At: now, Capacity: b.Capacity()}
	var err error
	switch f := b.(type) {
	case Fixed:
		var st mmapbloom.Stats
		st, err = f.SampleStats(HealthLines, seed)
		h.Layers, h.P = []mmapbloom.Stats{st}, st.P
	case sampledSet:
		var info mmapbloom.SetInfo
		if info, err = f.Info(); err == nil {
			h.P = info.P
			h.Layers, err = f.SampleStats(HealthLines, seed)
		}
	default:
		return nil, ErrHealthUnsupported
	}
	if err != nil {
		return nil, err
	}
	h.Items, err = b.Count()
	return h, err
}

// Fresh reports whether h, a sample or nil (none), is younger than
// HealthMaxAge at now: the answer Sampled keeps.
func (h *Health) Fresh(now time.Time) bool { return h != nil && now.Sub(h.At) < HealthMaxAge }

// Fill is the key's set bits over its bits, every layer's.
func (h *Health) Fill() float64 {
	var set, m float64
	for _, l := range h.Layers {
		set, m = set+float64(l.SetBits), m+float64(l.M)
	}
	return set / m
}

// Cardinality is the sum of the layers' estimates.
func (h *Health) Cardinality() float64 {
	var sum float64
	for _, l := range h.Layers {
		sum += l.EstimatedCardinality
	}
	return sum
}

// FPR is the probability that a key never added tests present in some
// layer: 1 - prod(1 - fpr_i).
func (h *Health) FPR() float64 {
	miss := 1.0
	for _, l := range h.Layers {
		miss *= 1 - l.EstimatedFPR
	}
	return 1 - miss
}

// OverCapacity is true when some layer holds more adds than it was
// sized for (mmapbloom.Stats.OverCapacity, from its header count).
func (h *Health) OverCapacity() bool {
	for _, l := range h.Layers {
		if l.OverCapacity {
			return true
		}
	}
	return false
}

// healthSeeds draws the seeds of samples: a sequence, so that a test's
// samples are the same on every run.
var healthSeeds atomic.Uint64

// Sampled returns e's cached sample of its filter, taking a new one
// when it has none or its sample is HealthMaxAge old at now:
// ErrHealthUnsupported, the library's errors.
func (e *Entry) Sampled(now time.Time) (*Health, error) {
	if h := e.health.Load(); h.Fresh(now) {
		return h, nil
	}
	h, err := sampleHealth(e.b, healthSeeds.Add(1), now)
	if err != nil {
		return nil, err
	}
	e.health.Store(h)
	return h, nil
}

// Sample returns e's cached sample, nil before the first.
func (e *Entry) Sample() *Health { return e.health.Load() }
