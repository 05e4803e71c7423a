package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// coldCase is one filter file that cold starts are timed on.
type coldCase struct {
	lib  string // coldstart's -lib
	path string
	make func(path string) error
}

// runCold is the cold subcommand.
func runCold(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("cold", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the filter files")
	prog := fs.String("coldstart", besideSelf("coldstart"), "the coldstart program")
	runs := fs.Int("runs", 20, "fresh processes per file")
	sizeFlag := fs.String("size", "1GiB", "bytes of the bit arrays (KiB, MiB, GiB suffixes)")
	babN := fs.String("bab-n", "50M", "keys the smaller bits-and-blooms filter is sized for")
	nKeys := fs.String("keys", "1M", "keys added to each filter")
	if err := fs.Parse(args); err != nil {
		return err
	}
	size, err := parseBytes(*sizeFlag)
	if err != nil {
		return err
	}
	nb, err := keys.ParseN(*babN)
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
	cases := []coldCase{
		{"mmapbloom", filepath.Join(*dir, "cold.bloom"), func(p string) error { return files.StoreOfBytes(p, size, ks) }},
		{"bitsandblooms", filepath.Join(*dir, "cold-n.bab"), func(p string) error { return files.BitsAndBloomsForKeys(p, uint64(nb), ks) }},
		{"bitsandblooms", filepath.Join(*dir, "cold-size.bab"), func(p string) error { return files.BitsAndBloomsOfBytes(p, size, ks) }},
	}
	for _, c := range cases {
		if err := coldOne(c, *prog, *runs, string(ks[0]), out); err != nil {
			return err
		}
	}
	return nil
}

// coldOne makes and warms one file, times the runs, measures the heap
// once, prints both lines and removes the file.
func coldOne(c coldCase, prog string, runs int, key string, out io.Writer) error {
	if err := c.make(c.path); err != nil {
		return err
	}
	defer func() { _ = os.Remove(c.path) }()
	st, err := os.Stat(c.path)
	if err != nil {
		return err
	}
	if err := files.Warm(c.path); err != nil {
		return err
	}
	args := []string{"-lib", c.lib, "-file", c.path, "-key", key}
	var inside, whole []float64
	for range runs {
		start := time.Now()
		kv, err := runOnce(prog, args...)
		if err != nil {
			return err
		}
		whole = append(whole, float64(time.Since(start).Nanoseconds()))
		if kv["present"] != "true" {
			return fmt.Errorf("%s: key not found in %s", prog, c.path)
		}
		inside = append(inside, kv.num("elapsed-ns"))
	}
	name := fmt.Sprintf("lib=%s/size=%s", c.lib, formatBytes(uint64(st.Size())))
	err = printLine(out, "BenchmarkColdStart/"+name, runs,
		metric{median(inside), "median-ns"}, metric{slices.Max(inside), "max-ns"},
		metric{median(whole), "process-median-ns"}, metric{float64(st.Size()), "filter-bytes"})
	if err != nil {
		return err
	}
	kv, err := runOnce(prog, append(args, "-heap")...)
	if err != nil {
		return err
	}
	return printLine(out, "BenchmarkHeapInuse/"+name, 1,
		metric{kv.num("heap-open-bytes"), "heap-open-bytes"},
		metric{kv.num("heap-query-bytes"), "heap-query-bytes"},
		metric{float64(st.Size()), "filter-bytes"})
}

// parseBytes reads a size such as 1GiB, 512MiB, 64KiB or 4096.
func parseBytes(s string) (uint64, error) {
	mult := uint64(1)
	for suffix, m := range map[string]uint64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("bad size %q (want e.g. 1GiB)", s)
	}
	return v * mult, nil
}

// formatBytes writes a file size for a benchmark name: whole GiB when it
// is within 1 MiB of them, else rounded MiB, else KiB.
func formatBytes(b uint64) string {
	switch {
	case b >= 1<<30 && (b+1<<20)%(1<<30) <= 2<<20:
		return fmt.Sprintf("%dGiB", (b+1<<20)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%dMiB", (b+1<<19)/(1<<20))
	}
	return fmt.Sprintf("%dKiB", (b+1<<9)/(1<<10))
}
