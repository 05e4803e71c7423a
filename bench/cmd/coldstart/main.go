// Command coldstart opens a Bloom filter file and answers one query, as a
// fresh process would, and prints the time that took, measured inside the
// process from just before the open to just after the answer.
//
//	coldstart -lib mmapbloom -file filter.bloom -key https://...
//	coldstart -lib bitsandblooms -file filter.bab -key https://... -heap
//
// -lib mmapbloom maps the file with mmapbloom.Open (-lib mmapbloom-huge
// with OpenOptions.HugePages); -lib bitsandblooms
// reads a file written by bits-and-blooms' WriteTo with os.Open, a
// bufio.Reader and ReadFrom. Output, one line of key=value pairs:
//
//	elapsed-ns=<open+first answer> present=<answer>
//
// With -probes N it queries, after -key, the first N-1 generated present
// keys (bench/keys), one call each, or with -batch in one batch call
// (bits-and-blooms has none: a loop of Test), times open + every answer
// and adds probes=N found=<answers present>.
//
// With -heap it adds heap-open-bytes and heap-query-bytes: the Go heap in
// use (runtime.MemStats.HeapInuse after runtime.GC) with the filter open,
// before and after the query. The collections run after the timed part.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mmapbloom/mmapbloom/bench/keys"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

// run parses args, runs one probe and writes its line to out.
func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("coldstart", flag.ContinueOnError)
	lib := fs.String("lib", "mmapbloom", "library: mmapbloom, mmapbloom-huge or bitsandblooms")
	file := fs.String("file", "", "filter file")
	key := fs.String("key", "", "key to query")
	heap := fs.Bool("heap", false, "also report the Go heap in use")
	probes := fs.Int("probes", 1, "keys to query: -key, then generated present keys")
	batch := fs.Bool("batch", false, "query the keys in one batch call")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" || *probes < 1 {
		return fmt.Errorf("-file is required, and -probes must be at least 1")
	}
	open, ok := openers[*lib]
	if !ok {
		return fmt.Errorf("unknown -lib %q", *lib)
	}
	ks := append([][]byte{[]byte(*key)}, keys.Generate(keys.Present, 0, uint64(*probes-1)).Keys()...)
	r, err := probe(open, *file, ks, *batch, *heap)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, r)
	return err
}
