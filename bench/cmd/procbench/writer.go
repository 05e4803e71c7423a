package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// runWriter is the writer subcommand, a long-running writer that the
// writes subcommand measures: it opens an existing filter file and adds
// the generated present keys from -from on, one Add call each, -rate
// keys per second in steps of 10 ms, for -for, calling Sync every -sync
// (0: never). It prints "adds=N syncs=S".
func runWriter(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("writer", flag.ContinueOnError)
	file := fs.String("file", "", "filter file")
	rate := fs.Int("rate", 2000, "keys per second")
	from := fs.Uint64("from", 0, "index of the first generated key")
	dur := fs.Duration("for", time.Minute, "how long to add")
	every := fs.Duration("sync", 0, "interval of Sync (0: never)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := mmapbloom.Open(*file, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	const step = 10 * time.Millisecond
	perStep := max(*rate/int(time.Second/step), 1)
	start, lastSync := time.Now(), time.Now()
	next, syncs := *from, 0
	var key []byte
	for tick := time.Duration(0); tick < *dur; tick += step {
		for range perStep {
			key = keys.AppendURL(key[:0], keys.Present, next)
			if err := f.Add(key); err != nil {
				return err
			}
			next++
		}
		if *every > 0 && time.Since(lastSync) >= *every {
			if err := f.Sync(); err != nil {
				return err
			}
			lastSync, syncs = time.Now(), syncs+1
		}
		time.Sleep(time.Until(start.Add(tick + step)))
	}
	_, err = fmt.Fprintf(out, "adds=%d syncs=%d\n", next-*from, syncs)
	return err
}
