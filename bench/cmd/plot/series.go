package main

import (
	"slices"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

const peersFunc = "BenchmarkPeers"

// panelOps are the panels: a title and the single-key and batch
// operations drawn in it.
var panelOps = []struct{ title, op, batchOp string }{
	{"Add", "add", "batch-add"},
	{"Test of present keys", "test-present", "batch-test-present"},
}

// point is one measurement: filter bytes and nanoseconds per key.
type point struct{ bytes, ns float64 }

// line is one library's points, by filter size.
type line struct {
	name   string
	points []point
}

// panel is the lines of one operation.
type panel struct {
	title string
	lines []line
}

// collect gathers the points of one panel: a line per library for the
// single-key operation, and one per library that has the batch one.
func collect(rs result.Set, p struct{ title, op, batchOp string }) panel {
	out := panel{title: p.title}
	for _, lib := range rs.Values(peersFunc, "lib") {
		if l := series(rs, lib, p.op, "ns/op", lib); len(l.points) > 0 {
			out.lines = append(out.lines, l)
		}
		if l := series(rs, lib, p.batchOp, "ns/key", lib+" batch"); len(l.points) > 0 {
			out.lines = append(out.lines, l)
		}
	}
	return out
}

// series returns the points of lib's op over every key count.
func series(rs result.Set, lib, op, unit, name string) line {
	l := line{name: name}
	for _, n := range rs.SizesOf(peersFunc) {
		r, ok := rs.Find(peersFunc, map[string]string{"lib": lib, "n": n, "op": op})
		if !ok {
			continue
		}
		y, okY := r.Metrics[unit]
		x, okX := r.Metrics["filter-bytes"]
		if okX && okY {
			l.points = append(l.points, point{x, y})
		}
	}
	slices.SortFunc(l.points, func(a, b point) int {
		switch {
		case a.bytes < b.bytes:
			return -1
		case a.bytes > b.bytes:
			return 1
		}
		return 0
	})
	return l
}
