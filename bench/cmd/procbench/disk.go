package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// diskOp is one cold-from-disk measurement: the program and arguments
// to run on a file (appended last), for the libraries it applies to.
type diskOp struct {
	name string
	libs []string // coldstart -lib values; nil: the CLI (mmapbloom only)
	args []string
}

// diskOps are the measurements of the disk subcommand, in table order.
func diskOps(key string) []diskOp {
	both := []string{"mmapbloom", "mmapbloom-huge", "bitsandblooms"}
	return []diskOp{
		{"first", both, []string{"-key", key}},
		{"single-1000", both, []string{"-key", key, "-probes", "1000"}},
		{"batch-100000", both, []string{"-key", key, "-probes", "100000", "-batch"}},
		{"info", nil, []string{"info"}},
		{"info-stats", nil, []string{"info", "--stats"}},
	}
}

// runDisk is the disk subcommand.
func runDisk(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("disk", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the filter files (on a disk, not tmpfs)")
	coldstart := fs.String("coldstart", besideSelf("coldstart"), "the coldstart program")
	cli := fs.String("mmapbloom", besideSelf("mmapbloom"), "the mmapbloom command-line tool")
	self := fs.String("procbench", besideSelf("procbench"), "this program, to run procbench rusage")
	runs := fs.Int("runs", 3, "fresh processes per measurement")
	sizeFlag := fs.String("size", "1GiB", "bytes of the bit arrays (KiB, MiB, GiB suffixes)")
	nKeys := fs.String("keys", "1M", "keys added to each filter")
	if err := fs.Parse(args); err != nil {
		return err
	}
	size, err := parseBytes(*sizeFlag)
	if err != nil {
		return err
	}
	nk, err := keys.ParseN(*nKeys)
	if err != nil {
		return err
	}
	if *dir == "" || *runs < 1 {
		return fmt.Errorf("need -dir and -runs >= 1")
	}
	ks := keys.Generate(keys.Present, 0, uint64(nk)).Keys()
	store, bab := filepath.Join(*dir, "disk.bloom"), filepath.Join(*dir, "disk.bab")
	defer func() { _ = os.Remove(store); _ = os.Remove(bab) }()
	if err := files.StoreOfBytes(store, size, ks); err != nil {
		return err
	}
	if err := files.BitsAndBloomsOfBytes(bab, size, ks); err != nil {
		return err
	}
	paths := map[string]string{"mmapbloom": store, "mmapbloom-huge": store, "bitsandblooms": bab}
	for _, op := range diskOps(string(ks[0])) {
		if op.libs == nil {
			if err := diskLine(out, *self, "mmapbloom-cli", op.name, *runs, store, *cli, append(op.args, store)...); err != nil {
				return err
			}
			continue
		}
		for _, lib := range op.libs {
			args := append([]string{"-lib", lib, "-file", paths[lib]}, op.args...)
			if err := diskLine(out, *self, lib, op.name, *runs, paths[lib], *coldstart, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// diskLine runs prog with args runs times, each after dropping file from
// the page cache, and prints the medians of the wall time and of the
// bytes read from storage, and the largest peak RSS.
func diskLine(out io.Writer, self, lib, op string, runs int, file, prog string, args ...string) error {
	var wall, read []float64
	var rss float64
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	for range runs {
		if err := files.Drop(file); err != nil {
			return err
		}
		w, r, peak, err := measure(self, prog, args...)
		if err != nil {
			return err
		}
		wall, read, rss = append(wall, w), append(read, r), max(rss, peak)
	}
	name := fmt.Sprintf("BenchmarkColdDisk/lib=%s/op=%s/size=%s", lib, op, formatBytes(uint64(st.Size())))
	return printLine(out, name, runs, metric{median(wall), "median-ns"}, metric{slices.Max(wall), "max-ns"},
		metric{median(read), "read-bytes"}, metric{rss, "peak-rss-bytes"}, metric{float64(st.Size()), "filter-bytes"})
}

// measure runs prog through the rusage subcommand of self, procbench
// (output discarded), and returns its wall time in ns, the bytes it read from
// storage and its peak resident set in bytes.
func measure(self, prog string, args ...string) (wall, read, rss float64, err error) {
	kv, err := runOnce(self, append([]string{"rusage", prog}, args...)...)
	if err != nil {
		return 0, 0, 0, err
	}
	return kv.num("wall-ns"), kv.num("read-bytes"), kv.num("peak-rss-bytes"), nil
}

// runRusage is the rusage subcommand: it runs args[0] with the other
// args (its output discarded) and prints its wall time, the bytes it read
// from storage and its peak resident set (getrusage of the child:
// ru_inblock in 512-byte units, ru_maxrss in KiB on Linux). It runs as a
// small process of its own because Go starts a child sharing the
// parent's memory until exec, and Linux keeps that memory's peak in the
// child's ru_maxrss: measured from procbench, which holds the filter
// keys, every child would report procbench's peak.
func runRusage(args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: procbench rusage PROG [ARG...]")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %w", args[0], args[1:], err)
	}
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return fmt.Errorf("%s: no rusage on this system", args[0])
	}
	_, err := fmt.Fprintf(out, "wall-ns=%d read-bytes=%d peak-rss-bytes=%d\n", wall.Nanoseconds(), ru.Inblock*512, ru.Maxrss*1024)
	return err
}
