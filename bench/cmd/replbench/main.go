// Command replbench loads a RESP server with pipelined adds on many
// connections, as redis-benchmark -c C -P P does, optionally ending each
// pipeline with `WAIT 1 0`: Redis's nearest to "acknowledged means
// replicated", against which bench/replication-bf-add.sh compares
// `mmapbloom serve --replication jetstream`, whose every BF.ADD is
// answered only once the replication log has it.
//
// usage: replbench -addr HOST:PORT [-c 64] [-P 16] [-n 100000]
//
//	[-cmd SADD|BF.ADD] [-key K] [-wait] [-seed S]
//
// Each connection sends rounds of P commands `CMD KEY ITEM` (ITEM a
// random integer below 10^12), plus `WAIT 1 0` with -wait, and reads
// every reply before the next round; an error reply, or a WAIT that
// reached no replica, fails the run. It prints one line:
//
//	adds=N seconds=S adds_per_s=R p50_ms=A p99_ms=B
//
// where the latencies are those of a round (send to last reply).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replbench:", err)
		os.Exit(2)
	}
}

// config is a run's parameters (the flags).
type config struct {
	addr, cmd, key string
	conns, depth   int
	n              int
	wait           bool
	seed           uint64
}

// errUsage is returned for bad flags.
var errUsage = errors.New("bad usage")

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("replbench", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "", "server HOST:PORT")
	fs.StringVar(&c.cmd, "cmd", "BF.ADD", "add command: SADD or BF.ADD")
	fs.StringVar(&c.key, "key", "seen:0", "key added to")
	fs.IntVar(&c.conns, "c", 64, "connections")
	fs.IntVar(&c.depth, "P", 16, "adds per pipeline")
	fs.IntVar(&c.n, "n", 100000, "adds in all (rounded up to whole rounds of every connection)")
	fs.BoolVar(&c.wait, "wait", false, "end each pipeline with WAIT 1 0")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random items")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.addr == "" || c.conns < 1 || c.depth < 1 || c.n < 1 {
		return c, fmt.Errorf("%w: -addr is required; -c, -P and -n must be positive", errUsage)
	}
	return c, nil
}

func run(args []string, out io.Writer) error {
	c, err := parse(args)
	if err != nil {
		return err
	}
	rounds := (c.n + c.conns*c.depth - 1) / (c.conns * c.depth)
	start := time.Now()
	lat, err := load(c, rounds)
	secs := time.Since(start).Seconds()
	if err != nil {
		return err
	}
	adds := rounds * c.conns * c.depth
	p50, p99 := percentiles(lat)
	_, err = fmt.Fprintf(out, "adds=%d seconds=%.3f adds_per_s=%.0f p50_ms=%.3f p99_ms=%.3f\n",
		adds, secs, float64(adds)/secs, ms(p50), ms(p99))
	return err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// readLine reads one CRLF-terminated line without its CRLF.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("bad reply line %q", line)
	}
	return line[:len(line)-2], nil
}
