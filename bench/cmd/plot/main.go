// Command plot draws bench/plot.png from the raw output of the peer
// benchmarks at several key counts: time per key (y) against filter size
// in bytes (x, log scale), one line per library, one panel for adds and
// one for tests of present keys, with this store's batch calls as lines
// of their own.
//
//	plot -o plot.png out/peers-*.bench
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

// run reads the files named by args and writes the image.
func run(args []string) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	out := fs.String("o", "plot.png", "PNG file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rs, err := result.ReadFiles(fs.Args())
	if err != nil {
		return err
	}
	var panels []panel
	for _, p := range panelOps {
		panels = append(panels, collect(rs, p))
	}
	if len(panels[0].lines) == 0 && len(panels[1].lines) == 0 {
		return fmt.Errorf("no BenchmarkPeers results in %v", fs.Args())
	}
	return draw(panels, *out)
}
