package server

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// A key's health (MBF.HEALTH, INFO bloom's health fields, Stats'): its
// fill ratio, estimated cardinality and false-positive rate, per layer,
// from a sample of each layer's bit array (mmapbloom.Filter.SampleStats)
// cached on the open key with the time it was taken. No command and no
// INFO reads a whole array: a sample reads healthLines 64-byte lines of
// each layer, and INFO takes at most healthRefreshPerCall new samples.
const (
	// healthLines is the lines (64 bytes, a blocked512 block) sampled per
	// layer: 64 KiB read, a fill ratio within about 0.0007 (classic) or
	// 0.0016 (blocked512) of the exact pass at one standard error.
	healthLines = 1024
	// healthMaxAge is how long a key's sample stays the answer.
	healthMaxAge = 10 * time.Second
	// healthRefreshPerCall bounds the samples one INFO or Stats takes of
	// open keys whose sample is missing or older than healthMaxAge.
	healthRefreshPerCall = 8
)

// fprRatioBounds are the upper bounds of the histogram of a key's
// estimated false-positive rate over its target p (INFO's
// bloom_fpr_ratio_histogram, the metric estimated_fpr_ratio).
var fprRatioBounds = []float64{0.5, 1, 2, 5, 10}

// errHealthUnsupported answers MBF.HEALTH on a filter of a Sets backend
// that cannot sample its layers.
var errHealthUnsupported = errors.New("MBF.HEALTH: this filter cannot be sampled")

// sampledSet is a set that can sample its layers and tell its target
// (the library's sets, through set).
type sampledSet interface {
	SampleStats(lines int, seed uint64) ([]mmapbloom.Stats, error)
	Info() (mmapbloom.SetInfo, error)
}

// keyHealth is one sample of a key: its layers' SampleStats, oldest
// first, and the key's own figures.
type keyHealth struct {
	at       time.Time
	p        float64 // the key's false-positive target (a set's, a fixed filter's header's)
	capacity uint64
	items    uint64 // the header count (BF.CARD)
	layers   []mmapbloom.Stats
}

// sampleHealth samples b's layers with seed.
func sampleHealth(b store.Bloom, seed uint64, now time.Time) (*keyHealth, error) {
	h := &keyHealth{at: now, capacity: b.Capacity()}
	var err error
	switch f := b.(type) {
	case store.Fixed:
		var st mmapbloom.Stats
		st, err = f.SampleStats(healthLines, seed)
		h.layers, h.p = []mmapbloom.Stats{st}, st.P
	case sampledSet:
		var info mmapbloom.SetInfo
		if info, err = f.Info(); err == nil {
			h.p = info.P
			h.layers, err = f.SampleStats(healthLines, seed)
		}
	default:
		return nil, errHealthUnsupported
	}
	if err != nil {
		return nil, err
	}
	h.items, err = b.Count()
	return h, err
}

// fill is the key's set bits over its bits, every layer's.
func (h *keyHealth) fill() float64 {
	var set, m float64
	for _, l := range h.layers {
		set, m = set+float64(l.SetBits), m+float64(l.M)
	}
	return set / m
}

// cardinality is the sum of the layers' estimates.
func (h *keyHealth) cardinality() float64 {
	var sum float64
	for _, l := range h.layers {
		sum += l.EstimatedCardinality
	}
	return sum
}

// fpr is the probability that a key never added tests present in some
// layer: 1 - prod(1 - fpr_i).
func (h *keyHealth) fpr() float64 {
	miss := 1.0
	for _, l := range h.layers {
		miss *= 1 - l.EstimatedFPR
	}
	return 1 - miss
}

// overCapacity is true when some layer holds more adds than it was
// sized for (mmapbloom.Stats.OverCapacity, from its header count).
func (h *keyHealth) overCapacity() bool {
	for _, l := range h.layers {
		if l.OverCapacity {
			return true
		}
	}
	return false
}

// healthSeeds draws the seeds of samples: a sequence, so that a test's
// samples are the same on every run.
var healthSeeds atomic.Uint64

// sampled returns e's cached sample of b (e's filter), taking a new one when it has none or
// its sample is healthMaxAge old.
func (e *entry) sampled(b store.Bloom, now time.Time) (*keyHealth, error) {
	if h := e.health.Load(); h != nil && now.Sub(h.at) < healthMaxAge {
		return h, nil
	}
	h, err := sampleHealth(b, healthSeeds.Add(1), now)
	if err != nil {
		return nil, err
	}
	e.health.Store(h)
	return h, nil
}

// MBF.HEALTH key: the key's health from a sample at most healthMaxAge
// old, as a map (RESP2: a flat array): capacity, items (the header
// count), fill_ratio, estimated_cardinality (Swamidass and Baldi 2007,
// "Mathematical correction for fingerprint similarity measures": -(m/k)
// ln(1 - X/m) per layer, per block for blocked512), estimated_fpr
// (fill^k per layer, 1 - prod(1 - fpr_i) over a set's layers),
// error_rate (the target p), over_capacity, sample_age_ms,
// sampled_lines (per layer), then layers: one map per layer, oldest
// first, of the same figures. A folded key describes its bucket.
func mbfHealth(c *client, args [][]byte) {
	var h *keyHealth
	err := c.useEntry(args[1], nil, func(e *entry, _ func(store.Bloom) store.Bloom) (err error) {
		h, err = e.sampled(e.b, time.Now())
		return err
	})
	if err != nil {
		c.replyErr(err)
		return
	}
	c.writeMapLen(10)
	c.writeHealthFigures(h.capacity, h.items, h.fill(), h.cardinality(), h.fpr(), h.p, h.overCapacity())
	c.w.WriteString("sample_age_ms")
	c.w.WriteInt64(max(time.Since(h.at).Milliseconds(), 0))
	c.w.WriteString("sampled_lines")
	c.w.WriteInt(healthLines)
	c.w.WriteString("layers")
	c.w.WriteArray(len(h.layers))
	for _, l := range h.layers {
		c.writeMapLen(7)
		c.writeHealthFigures(l.N, l.Count, l.FillRatio, l.EstimatedCardinality, l.EstimatedFPR, l.P, l.OverCapacity)
	}
}

// writeHealthFigures writes MBF.HEALTH's seven figures of a key or a
// layer as map entries.
func (c *client) writeHealthFigures(capacity, items uint64, fill, card, fpr, p float64, over bool) {
	c.w.WriteString("capacity")
	c.w.WriteUint64(capacity)
	c.w.WriteString("items")
	c.w.WriteUint64(items)
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"fill_ratio", fill}, {"estimated_cardinality", card}, {"estimated_fpr", fpr}, {"error_rate", p}} {
		c.w.WriteString(f.name)
		c.writeDouble(f.v)
	}
	c.w.WriteString("over_capacity")
	c.writeBool(over)
}

// healthSummary is what INFO's bloom section and Stats report of the
// open keys' samples.
type healthSummary struct {
	sampled, overCapacity int64
	// ratioCounts[i] counts the sampled keys whose estimated FPR over p
	// is at most fprRatioBounds[i] (cumulative); ratioKeys those with a
	// p (a filter made from m and k has none), ratioSum their ratios.
	ratioCounts []uint64
	ratioKeys   uint64
	ratioSum    float64
}

// healthSummary aggregates the cached samples of the open keys, first
// taking new samples of at most healthRefreshPerCall keys whose sample
// is missing or stale (outside the store's lock: a key closed since
// answers an error and keeps no sample).
func (s *filterStore) healthSummary(now time.Time) healthSummary {
	type open struct {
		e *entry
		b store.Bloom
	}
	var keys []open
	s.mu.Lock()
	for _, e := range s.open {
		if e.b != nil && !e.broken {
			keys = append(keys, open{e, e.b})
		}
	}
	s.mu.Unlock()
	sum := healthSummary{ratioCounts: make([]uint64, len(fprRatioBounds))}
	budget := healthRefreshPerCall
	for _, k := range keys {
		h := k.e.health.Load()
		if (h == nil || now.Sub(h.at) >= healthMaxAge) && budget > 0 {
			budget--
			if fresh, err := k.e.sampled(k.b, now); err == nil {
				h = fresh
			}
		}
		if h != nil {
			sum.add(h)
		}
	}
	return sum
}

// add counts h in the summary.
func (sum *healthSummary) add(h *keyHealth) {
	sum.sampled++
	if h.overCapacity() {
		sum.overCapacity++
	}
	if h.p <= 0 {
		return
	}
	r := h.fpr() / h.p
	sum.ratioKeys++
	sum.ratioSum += r
	for i, b := range fprRatioBounds {
		if r <= b {
			sum.ratioCounts[i]++
		}
	}
}

// histogram is INFO's bloom_fpr_ratio_histogram value: bound=count
// pairs, cumulative, inf the keys with a p.
func (sum healthSummary) histogram() string {
	var out []byte
	for i, b := range fprRatioBounds {
		out = fmt.Appendf(out, "%g=%d,", b, sum.ratioCounts[i])
	}
	return string(fmt.Appendf(out, "inf=%d", sum.ratioKeys))
}
