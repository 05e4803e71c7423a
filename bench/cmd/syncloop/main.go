// Command syncloop opens a filter file and calls Sync on it over and over
// for a while, as another process sharing the file with `mmapbloom serve`
// would: bench/serve.sh measures the server's p99 latency meanwhile.
//
// usage: syncloop -file F [-for 20s] [-every 0]
//
// It prints "syncs=N" when done, or on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "syncloop:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("syncloop", flag.ContinueOnError)
	file := fs.String("file", "", "filter file")
	dur := fs.Duration("for", 20*time.Second, "how long to keep syncing")
	every := fs.Duration("every", 0, "pause between syncs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := mmapbloom.Open(*file, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	n := 0
	for end := time.Now().Add(*dur); time.Now().Before(end) && stop.Err() == nil; n++ {
		if err := f.Sync(); err != nil {
			return err
		}
		time.Sleep(*every)
	}
	_, err = fmt.Fprintf(out, "syncs=%d\n", n)
	return err
}
