package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

// targetLib is the layout the targets are for: Create's default at p = 1e-4.
const targetLib = "mmapbloom-blocked"

// targetN is the key count the targets are stated at.
const targetN = "50M"

// target is one line of the targets.
type target struct {
	id, what, goal string
	// measure returns the value compared with the goal and the text of
	// the measured cell; ok is false when the run did not measure it.
	measure func(rs result.Set) (v float64, text string, ok bool)
	met     func(v float64) bool
}

func atMost(limit float64) func(float64) bool  { return func(v float64) bool { return v <= limit } }
func below(limit float64) func(float64) bool   { return func(v float64) bool { return v < limit } }
func atLeast(limit float64) func(float64) bool { return func(v float64) bool { return v >= limit } }

var targets = []target{
	{"test-present", "single-key Test of present keys", "<= 100 ns", peerMeasure("test-present", "ns/op", true), atMost(100)},
	{"add", "single-key Add", "<= 150 ns", peerMeasure("add", "ns/op", true), atMost(150)},
	{"batch-test", "batch Test of present keys", "<= 30 ns/key", peerMeasure("batch-test-present", "ns/key", false), atMost(30)},
	{"batch-add", "batch Add", "<= 45 ns/key", peerMeasure("batch-add", "ns/key", false), atMost(45)},
	{"fpr", "measured false-positive rate at p = 1e-4", "<= 1e-4", fprMeasure, atMost(1e-4)},
	{"coldstart", "cold start, open + first answer, 1 GiB filter in page cache", "<= 1 ms", coldMeasure, atMost(1e6)},
	{"heap", "Go heap in use with a 1 GiB filter open", "< 16 MiB", heapMeasure, below(16 << 20)},
	{"scale-batch", "2 processes adding to one file (AddBatch) vs 1", ">= 1.6x", scaleMeasure("batch"), atLeast(1.6)},
	{"scale-single", "2 processes adding to one file (Add) vs 1", ">= 1.6x", scaleMeasure("single"), atLeast(1.6)},
}

// writeTargets writes the targets table: goal, measured, met, and for a
// missed target the reason from the notes.
func writeTargets(b *strings.Builder, rs result.Set, notes map[string]string) {
	fmt.Fprintf(b, "### Targets (%s, p = 1e-4, one goroutine; %s)\n\n", sizeLabel(rs), targetLib)
	var rows [][]string
	for _, t := range targets {
		v, text, ok := t.measure(rs)
		met, reason := "not measured", ""
		switch {
		case ok && t.met(v):
			met, reason = "yes", notes[t.id]
		case ok:
			met, reason = "**no**", notes[t.id]
			if reason == "" {
				reason = "(no reason given: add a line `" + t.id + ": ...` to bench/targets-notes.txt)"
			}
		}
		rows = append(rows, []string{t.what, t.goal, text, met, reason})
	}
	table(b, []string{"target", "goal", "measured", "met?", "reason and what would close it"}, rows)
}

// peerN returns the size the peer targets are read at: 50M when the run
// has it, else the largest.
func peerN(rs result.Set) (string, bool) {
	ns := rs.SizesOf(peersFunc)
	if len(ns) == 0 {
		return "", false
	}
	if slices.Contains(ns, targetN) {
		return targetN, true
	}
	return ns[len(ns)-1], true
}

func sizeLabel(rs result.Set) string {
	n, ok := peerN(rs)
	if !ok || n == targetN {
		return targetN + " keys"
	}
	return n + " keys, not the " + targetN + " of the targets"
}

// peerMeasure reads op of this store; withPeers adds the peers' figures.
func peerMeasure(op, unit string, withPeers bool) func(result.Set) (float64, string, bool) {
	return func(rs result.Set) (float64, string, bool) {
		n, ok := peerN(rs)
		if !ok {
			return 0, "-", false
		}
		v, ok := rs.Metric(peersFunc, map[string]string{"lib": targetLib, "n": n, "op": op}, unit)
		if !ok {
			return 0, "-", false
		}
		text := ns(v) + " " + strings.TrimSuffix(unit, "/op")
		if withPeers {
			var peers []string
			for _, lib := range []string{"blobloom", "bitsandblooms"} {
				if pv, ok := rs.Metric(peersFunc, map[string]string{"lib": lib, "n": n, "op": op}, unit); ok {
					peers = append(peers, lib+" "+ns(pv))
				}
			}
			if len(peers) > 0 {
				text += " (" + strings.Join(peers, ", ") + ")"
			}
		}
		return v, text, true
	}
}

func fprMeasure(rs result.Set) (float64, string, bool) {
	n, ok := peerN(rs)
	if !ok {
		return 0, "-", false
	}
	v, ok := rs.Metric(peersFunc, map[string]string{"lib": targetLib, "n": n, "op": "test-absent"}, "fpr")
	if !ok {
		return 0, "-", false
	}
	text := rate(v)
	if bv, ok := rs.Metric(peersFunc, map[string]string{"lib": "blobloom", "n": n, "op": "test-absent"}, "fpr"); ok {
		text += " (blobloom " + rate(bv) + ")"
	}
	return v, text, true
}

func coldMeasure(rs result.Set) (float64, string, bool) {
	v, ok := rs.Metric(coldFunc, map[string]string{"lib": "mmapbloom", "size": "1GiB"}, "median-ns")
	if !ok {
		return 0, "-", false
	}
	text := ms(v) + " median"
	if mx, ok := rs.Metric(coldFunc, map[string]string{"lib": "mmapbloom", "size": "1GiB"}, "max-ns"); ok {
		text += ", " + ms(mx) + " max"
	}
	var peers []string
	for _, r := range rs {
		if r.Func == coldFunc && r.Params["lib"] == "bitsandblooms" {
			peers = append(peers, fmt.Sprintf("%s %s", r.Params["size"], ms(r.Metrics["median-ns"])))
		}
	}
	if len(peers) > 0 {
		text += " (bits-and-blooms ReadFrom: " + strings.Join(peers, ", ") + ")"
	}
	return v, text, true
}

func heapMeasure(rs result.Set) (float64, string, bool) {
	r, ok := rs.Find(heapFunc, map[string]string{"lib": "mmapbloom", "size": "1GiB"})
	if !ok {
		return 0, "-", false
	}
	v := max(r.Metrics["heap-open-bytes"], r.Metrics["heap-query-bytes"])
	return v, mib(v), true
}

func scaleMeasure(mode string) func(result.Set) (float64, string, bool) {
	return func(rs result.Set) (float64, string, bool) {
		v, ok := rs.Metric(scaleFunc, map[string]string{"mode": mode, "procs": "2"}, "speedup")
		if !ok {
			return 0, "-", false
		}
		return v, fmt.Sprintf("%.2fx", v), true
	}
}
