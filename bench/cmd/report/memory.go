package main

import (
	"strings"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

// memFunc is the machine's memory-latency benchmark (bench/memlat_test.go).
const memFunc = "BenchmarkMemoryLatency"

// writeMemory writes the machine's random-read latencies: the floor under
// a single-key probe and under a batch.
func writeMemory(b *strings.Builder, rs result.Set) {
	var rows [][]string
	for _, reads := range rs.Values(memFunc, "reads") {
		if r, ok := rs.Find(memFunc, map[string]string{"reads": reads}); ok {
			rows = append(rows, []string{reads, ns(r.Metrics["ns/op"])})
		}
	}
	if len(rows) > 0 {
		b.WriteString("### The machine: random 64-byte reads in a 128 MiB mapped file\n\n")
		b.WriteString("dependent: one read in flight (each address comes from the read before), the latency a single-key probe pays unless the CPU overlaps it with the next call's; independent: as many in flight as the CPU keeps.\n\n")
		table(b, []string{"reads", "ns per read"}, rows)
	}
}
