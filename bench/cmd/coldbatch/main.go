// Command coldbatch times one library call pattern on keys whose pages
// are on disk: it drops a filter file from the page cache (fsync, then
// posix_fadvise DONTNEED), opens it, and times -keys fresh random
// URL-like keys (never asked before, so no earlier run read their pages)
// through one of the calls, from just before the first call to just
// after the last:
//
//	coldbatch -file F -keys 20000 -mode test      one TestBatch
//	coldbatch -file F -keys 20000 -mode single    Test, one call per key
//	coldbatch -file F -keys 20000 -mode add       one AddBatch
//	coldbatch -file F -keys 20000 -mode testandadd one TestAndAddBatch
//
// With -warm it skips the drop. Output, one line of key=value pairs:
//
//	mode=test keys=20000 seconds=0.291 keys/s=68700
//
// bench/cold-batch.sh runs it beside fio on the same file.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "coldbatch:", err)
		os.Exit(1)
	}
}

// calls maps -mode to the calls it times on an open filter.
var calls = map[string]func(f *mmapbloom.Filter, keys [][]byte, out []bool) error{
	"test":       func(f *mmapbloom.Filter, keys [][]byte, out []bool) error { return f.TestBatch(keys, out) },
	"add":        func(f *mmapbloom.Filter, keys [][]byte, _ []bool) error { return f.AddBatch(keys) },
	"testandadd": func(f *mmapbloom.Filter, keys [][]byte, out []bool) error { return f.TestAndAddBatch(keys, out) },
	"single": func(f *mmapbloom.Filter, keys [][]byte, out []bool) (err error) {
		for i, k := range keys {
			if out[i], err = f.Test(k); err != nil {
				return err
			}
		}
		return nil
	},
}

// run parses args, times the calls and writes their line to out.
func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("coldbatch", flag.ContinueOnError)
	file := fs.String("file", "", "filter file")
	n := fs.Int("keys", 20000, "fresh keys to ask")
	mode := fs.String("mode", "test", "test, single, add or testandadd")
	warm := fs.Bool("warm", false, "leave the file in the page cache")
	if err := fs.Parse(args); err != nil {
		return err
	}
	call, ok := calls[*mode]
	if *file == "" || *n < 1 || !ok {
		return fmt.Errorf("need -file, -keys >= 1 and a -mode of test, single, add or testandadd")
	}
	asked := keys.Fresh(*n)
	if !*warm {
		if err := files.Drop(*file); err != nil {
			return err
		}
	}
	f, err := mmapbloom.Open(*file, &mmapbloom.OpenOptions{ReadOnly: *mode == "test" || *mode == "single"})
	if err != nil {
		return err
	}
	defer f.Close()
	present := make([]bool, len(asked))
	start := time.Now()
	if err := call(f, asked, present); err != nil {
		return err
	}
	sec := time.Since(start).Seconds()
	_, err = fmt.Fprintf(out, "mode=%s keys=%d seconds=%.3f keys/s=%.0f\n", *mode, len(asked), sec, float64(len(asked))/sec)
	return err
}
