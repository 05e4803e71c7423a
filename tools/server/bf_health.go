package server

import (
	"fmt"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// A key's health (MBF.HEALTH, INFO bloom's health fields, Stats'): the
// samples are package store's (store.Health, cached on the open key's
// Entry, store/health.go); here, MBF.HEALTH's reply and the summary of
// the open keys' samples. No command and no INFO reads a whole array:
// INFO takes at most healthRefreshPerCall new samples.

// healthRefreshPerCall bounds the samples one INFO or Stats takes of
// open keys whose sample is missing or older than store.HealthMaxAge.
const healthRefreshPerCall = 8

// fprRatioBounds are the upper bounds of the histogram of a key's
// estimated false-positive rate over its target p (INFO's
// bloom_fpr_ratio_histogram, the metric estimated_fpr_ratio).
var fprRatioBounds = []float64{0.5, 1, 2, 5, 10}

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
	var h *store.Health
	err := c.useEntry(args[1], nil, func(e *store.Entry, _ func(store.Bloom) store.Bloom) (err error) {
		h, err = e.Sampled(time.Now())
		return err
	})
	if err != nil {
		c.replyErr(err)
		return
	}
	c.writeMapLen(10)
	c.writeHealthFigures(h.Capacity, h.Items, h.Fill(), h.Cardinality(), h.FPR(), h.P, h.OverCapacity())
	c.w.WriteString("sample_age_ms")
	c.w.WriteInt64(max(time.Since(h.At).Milliseconds(), 0))
	c.w.WriteString("sampled_lines")
	c.w.WriteInt(store.HealthLines)
	c.w.WriteString("layers")
	c.w.WriteArray(len(h.Layers))
	for _, l := range h.Layers {
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

// healthSummaryOf aggregates the cached samples of st's open keys,
// first taking new samples of at most healthRefreshPerCall keys whose
// sample is missing or stale (outside the store's lock: a key closed
// since answers an error and keeps no sample).
func healthSummaryOf(st *store.Store, now time.Time) healthSummary {
	var keys []*store.Entry
	st.Each(func(e *store.Entry) { keys = append(keys, e) })
	sum := healthSummary{ratioCounts: make([]uint64, len(fprRatioBounds))}
	budget := healthRefreshPerCall
	for _, e := range keys {
		h := e.Sample()
		if !h.Fresh(now) && budget > 0 {
			budget--
			if fresh, err := e.Sampled(now); err == nil {
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
func (sum *healthSummary) add(h *store.Health) {
	sum.sampled++
	if h.OverCapacity() {
		sum.overCapacity++
	}
	if h.P <= 0 {
		return
	}
	r := h.FPR() / h.P
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
