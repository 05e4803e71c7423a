// Command addproc adds the generated present keys [from, to) to an
// existing mmapbloom file, as one of several processes sharing it, and
// prints how fast it went.
//
//	addproc -file filter.bloom -from 0 -to 10000000 -mode batch [-wait]
//
// The keys are generated and the file opened before the clock starts.
// With -wait it then prints "ready" and waits for a line on standard
// input, so that a driver can start several processes' adds together.
// -mode batch adds with AddBatch in batches of 1024 keys, -mode single
// with Add. Output, one line of key=value pairs:
//
//	adds=<count> start-unix-ns=<t0> end-unix-ns=<t1> adds-per-sec=<rate> cpu-ns=<cpu>
//
// cpu-ns is the CPU time (user plus system) of the adds: when two
// processes on two cores add slower than one, it tells contention in the
// store (more CPU per add) from cores taken by something else (the same).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "addproc:", err)
		os.Exit(1)
	}
}

// run parses args, adds the keys and writes the result line to out;
// with -wait it reads the start signal from in.
func run(args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("addproc", flag.ContinueOnError)
	file := fs.String("file", "", "mmapbloom filter file")
	from := fs.Uint64("from", 0, "first key index")
	to := fs.Uint64("to", 0, "key index past the last")
	mode := fs.String("mode", "batch", "batch (AddBatch) or single (Add)")
	wait := fs.Bool("wait", false, `print "ready" and wait for a line on stdin before adding`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" || *to <= *from {
		return fmt.Errorf("need -file and -from < -to")
	}
	add, ok := adders[*mode]
	if !ok {
		return fmt.Errorf("unknown -mode %q", *mode)
	}
	var start func() error
	if *wait {
		start = func() error { return awaitStart(in, out) }
	}
	r, err := addRange(*file, *from, *to, add, start)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, r)
	return err
}

// awaitStart says "ready" on out and waits for a line on in.
func awaitStart(in io.Reader, out io.Writer) error {
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the start line: %w", err)
	}
	return nil
}
