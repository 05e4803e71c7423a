package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

// Benchmark functions of bench/peers_test.go.
const (
	peersFunc    = "BenchmarkPeers"
	phishingFunc = "BenchmarkPeersPhishing"
)

// peerOps are the operations in table order; batch ones report ns/key.
var peerOps = []struct{ op, head, unit string }{
	{"add", "Add ns", "ns/op"},
	{"test-present", "Test present ns", "ns/op"},
	{"test-absent", "Test absent ns", "ns/op"},
	{"batch-add", "batch Add ns/key", "ns/key"},
	{"batch-test-present", "batch Test present ns/key", "ns/key"},
	{"batch-test-absent", "batch Test absent ns/key", "ns/key"},
}

// writePeers writes one table per workload: each generated size, then
// the real URLs.
func writePeers(b *strings.Builder, rs result.Set) {
	for _, n := range rs.SizesOf(peersFunc) {
		fmt.Fprintf(b, "### Generated URL-like keys, n = %s, p = 1e-4, one goroutine\n\n", n)
		peerTable(b, rs, peersFunc, n)
	}
	for _, n := range rs.SizesOf(phishingFunc) {
		fmt.Fprintf(b, "### Real phishing URLs: %s present (first 90%%), the rest absent, p = 1e-4\n\n", n)
		peerTable(b, rs, phishingFunc, n)
	}
}

// peerTable writes the rows of every library of one workload.
func peerTable(b *strings.Builder, rs result.Set, fn, n string) {
	header := []string{"library", "filter"}
	for _, o := range peerOps {
		header = append(header, o.head)
	}
	header = append(header, "measured FPR", "allocs/op (B/op)")
	var rows [][]string
	for _, lib := range rs.Values(fn, "lib") {
		if _, ok := rs.Find(fn, map[string]string{"lib": lib, "n": n}); !ok {
			continue
		}
		rows = append(rows, peerRow(rs, fn, lib, n))
	}
	table(b, header, rows)
}

func peerRow(rs result.Set, fn, lib, n string) []string {
	at := map[string]string{"lib": lib, "n": n}
	row := []string{lib, "-"}
	if v, ok := rs.Metric(fn, at, "filter-bytes"); ok {
		row[1] = mib(v)
	}
	for _, o := range peerOps {
		row = append(row, metricCell(rs, fn, lib, n, o.op, o.unit, ns))
	}
	fpr := "-"
	if r, ok := rs.Find(fn, map[string]string{"lib": lib, "n": n, "op": "test-absent"}); ok {
		if v, ok := r.Metrics["fpr"]; ok {
			fpr = rate(v)
		}
	}
	return append(row, fpr, allocCell(rs, fn, lib, n))
}

// metricCell is the value of unit for one operation, or "-".
func metricCell(rs result.Set, fn, lib, n, op, unit string, f func(float64) string) string {
	v, ok := rs.Metric(fn, map[string]string{"lib": lib, "n": n, "op": op}, unit)
	if !ok {
		return "-"
	}
	return f(v)
}

// allocCell is "0" when no operation allocates, else the ones that do.
func allocCell(rs result.Set, fn, lib, n string) string {
	var parts []string
	for _, o := range peerOps {
		r, ok := rs.Find(fn, map[string]string{"lib": lib, "n": n, "op": o.op})
		if !ok || r.Metrics["allocs/op"] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %.0f (%.0f)", o.op, r.Metrics["allocs/op"], r.Metrics["B/op"]))
	}
	if len(parts) == 0 {
		return "0"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
