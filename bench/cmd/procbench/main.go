// Command procbench runs the benchmarks that need fresh processes, and
// prints their results as Go benchmark lines for cmd/report:
//
//	procbench cold  -dir D [-runs 20] [-size 1GiB] [-bab-n 50M] [-keys 1M]
//	procbench scale -dir D [-n 20M] [-modes batch,single]
//
// cold writes a blocked mmapbloom file with a bit array of -size bytes,
// a bits-and-blooms file sized for -bab-n keys at p = 1e-4 and one of
// -size bytes (each holding the first -keys generated keys), reads each
// file once to put it in the page cache, then runs the coldstart program
// -runs times on each as fresh processes (open + one query, timed inside
// the process) and once more with -heap:
//
//	BenchmarkColdStart/lib=L/size=S  runs  median-ns  max-ns  process-median-ns  filter-bytes
//	BenchmarkHeapInuse/lib=L/size=S  1     heap-open-bytes  heap-query-bytes  filter-bytes
//
// scale writes a mmapbloom file sized for -n keys, has one addproc
// process add keys [0, n), then, on a new file, two processes add
// [0, n/2) and [n/2, n) at once; the rate of two is n over the span from
// the first start to the last end:
//
//	BenchmarkScale/mode=M/procs=P  n  adds/s  cpu-ns/add  [speedup]
//
// cpu-ns/add, the CPU time of all the processes per add, separates
// contention in the store (it grows with two processes) from cores taken
// by other work (it does not).
//
// The programs coldstart and addproc are looked for beside procbench,
// or given with -coldstart and -addproc. The files are removed at the end.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "procbench:", err)
		os.Exit(1)
	}
}

// run dispatches to the subcommand named by args[0].
func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: procbench cold|scale [flags]")
	}
	switch args[0] {
	case "cold":
		return runCold(args[1:], out)
	case "scale":
		return runScale(args[1:], out)
	}
	return fmt.Errorf("unknown subcommand %q (want cold or scale)", args[0])
}
