// Command procbench runs the benchmarks that need fresh processes, and
// prints their results as Go benchmark lines for cmd/report:
//
//	procbench cold  -dir D [-runs 20] [-size 1GiB] [-bab-n 50M] [-keys 1M]
//	procbench scale -dir D [-n 20M] [-modes batch,single]
//	procbench disk  -dir D [-runs 3] [-size 1GiB] [-keys 1M]
//	procbench rusage PROG [ARG...]
//	procbench writes -dir D [-n 50M] [-p 1e-4] [-layout auto] [-for 3m] [-writers 2000/0,2000/5s,200/0]
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
// disk writes a blocked mmapbloom file and a bits-and-blooms file, each
// with a bit array of -size bytes holding the first -keys generated keys,
// and measures fresh processes on them, each run after dropping the file
// from the page cache (posix_fadvise DONTNEED, no root needed): coldstart
// opening the file and answering one key (op=first), 1,000 keys one call
// each (single-1000), 100,000 keys in one batch call (batch-100000), for
// mmapbloom, mmapbloom with OpenOptions.HugePages (lib=mmapbloom-huge) and
// bits-and-blooms (ReadFrom of the whole file); and the mmapbloom CLI's
// info and info --stats (lib=mmapbloom-cli):
//
//	BenchmarkColdDisk/lib=L/op=O/size=S  runs  median-ns  max-ns  read-bytes  peak-rss-bytes  filter-bytes
//
// median-ns is the wall time of the whole process (exec to exit),
// read-bytes the median bytes it read from storage and peak-rss-bytes
// the largest peak resident set, both from getrusage of the child, run
// through procbench rusage PROG ARGS (which prints them for one run).
//
// writes measures the bytes written to the disk (write_bytes of
// /proc/PID/io, read as getrusage's ru_oublock of the child; and the
// device's count of sectors written, every process's, after a sync) for
// a filter of -n generated keys built by mmapbloom create then add
// (adds through the file's shared mapping) and by create --keys (the
// bits in private memory, the file written once), checks that the two
// files are equal, then runs long-running writers (procbench writer)
// that add to the first file RATE keys per second, one Add each, for
// -for, with Sync every SYNC (0: never):
//
//	BenchmarkDiskWrites/way=W/[rate=R/sync=S/]n=N  1  write-bytes  write-bytes/key  write-bytes/file-byte  device-bytes/file-byte  filter-bytes  wall-ns  peak-rss-bytes
//
// The programs coldstart, addproc and mmapbloom are looked for beside
// procbench, or given with -coldstart, -addproc and -mmapbloom. The files are removed at the end.
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
		return fmt.Errorf("usage: procbench cold|scale|disk|writes [flags]")
	}
	switch args[0] {
	case "cold":
		return runCold(args[1:], out)
	case "scale":
		return runScale(args[1:], out)
	case "disk":
		return runDisk(args[1:], out)
	case "rusage":
		return runRusage(args[1:], out)
	case "writes":
		return runWrites(args[1:], out)
	case "writer":
		return runWriter(args[1:], out)
	}
	return fmt.Errorf("unknown subcommand %q (want cold, scale, disk or writes)", args[0])
}
