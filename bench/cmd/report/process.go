package main

import (
	"fmt"
	"strings"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

// Benchmark functions of cmd/procbench.
const (
	coldFunc  = "BenchmarkColdStart"
	heapFunc  = "BenchmarkHeapInuse"
	scaleFunc = "BenchmarkScale"
	diskFunc  = "BenchmarkColdDisk"
)

// writeProcess writes the cold start, heap and multi-process tables.
func writeProcess(b *strings.Builder, rs result.Set) {
	var rows [][]string
	for _, r := range rs {
		if r.Func == coldFunc {
			rows = append(rows, []string{r.Params["lib"], mib(r.Metrics["filter-bytes"]), fmt.Sprint(r.Iterations),
				ms(r.Metrics["median-ns"]), ms(r.Metrics["max-ns"]), ms(r.Metrics["process-median-ns"])})
		}
	}
	if len(rows) > 0 {
		b.WriteString("### Cold start: a fresh process opens the file and answers one query (file in page cache)\n\n")
		table(b, []string{"library", "file", "runs", "open + first answer, median", "max", "whole process (exec to exit), median"}, rows)
	}
	rows = nil
	for _, r := range rs {
		if r.Func == heapFunc {
			rows = append(rows, []string{r.Params["lib"], mib(r.Metrics["filter-bytes"]),
				mib(r.Metrics["heap-open-bytes"]), mib(r.Metrics["heap-query-bytes"])})
		}
	}
	if len(rows) > 0 {
		b.WriteString("### Go heap in use (HeapInuse after runtime.GC) with the filter open\n\n")
		table(b, []string{"library", "file", "after open", "after one query"}, rows)
	}
	writeScale(b, rs)
	writeColdDisk(b, rs)
}

// diskOpNames describe procbench disk's ops for the table.
var diskOpNames = map[string]string{
	"first":        "open + first answer",
	"single-1000":  "open + 1,000 single probes",
	"batch-100000": "open + 100,000 probes in one batch call",
	"info":         "`mmapbloom info` (header only)",
	"info-stats":   "`mmapbloom info --stats` (scans the array)",
}

// writeColdDisk writes the cold-from-disk table: whole processes run on a
// file just dropped from the page cache.
func writeColdDisk(b *strings.Builder, rs result.Set) {
	var rows [][]string
	for _, r := range rs {
		if r.Func != diskFunc {
			continue
		}
		op := diskOpNames[r.Params["op"]]
		if op == "" {
			op = r.Params["op"]
		}
		rows = append(rows, []string{op, r.Params["lib"], mib(r.Metrics["filter-bytes"]), fmt.Sprint(r.Iterations),
			ms(r.Metrics["median-ns"]), mib(r.Metrics["read-bytes"]), mib(r.Metrics["peak-rss-bytes"])})
	}
	if len(rows) > 0 {
		b.WriteString("### Cold from disk: a fresh process after the file is dropped from the page cache (posix_fadvise DONTNEED)\n\n")
		table(b, []string{"what", "library", "file", "runs", "whole process, median", "read from disk, median", "peak RSS, largest"}, rows)
	}
}

func writeScale(b *strings.Builder, rs result.Set) {
	var rows [][]string
	for _, mode := range rs.Values(scaleFunc, "mode") {
		one, ok1 := rs.Find(scaleFunc, map[string]string{"mode": mode, "procs": "1"})
		two, ok2 := rs.Find(scaleFunc, map[string]string{"mode": mode, "procs": "2"})
		if !ok1 || !ok2 {
			continue
		}
		rows = append(rows, []string{mode, fmt.Sprint(one.Iterations),
			fmt.Sprintf("%.3g M/s", one.Metrics["adds/s"]/1e6), fmt.Sprintf("%.3g M/s", two.Metrics["adds/s"]/1e6),
			fmt.Sprintf("%.2fx", two.Metrics["speedup"]),
			cpuCell(one.Metrics, "cpu-ns/add") + " / " + cpuCell(two.Metrics, "cpu-ns/add")})
	}
	if len(rows) > 0 {
		b.WriteString("### Processes adding to one file (keys split evenly, started together)\n\n")
		table(b, []string{"adds", "keys in all", "1 process", "2 processes", "speedup", "CPU ns per add, 1 / 2 processes"}, rows)
	}
}

// cpuCell writes a CPU time per add, or "-" when the run lacks it.
func cpuCell(m map[string]float64, unit string) string {
	v, ok := m[unit]
	if !ok {
		return "-"
	}
	return ns(v)
}
