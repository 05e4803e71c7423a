// Command coldserve times a server's first answers on a cold filter: it
// drops a filter file from the page cache, starts `mmapbloom serve` on
// the file's directory, and times -keys fresh URL-like keys (never asked
// before, so no earlier run read their pages) asked with BF.MEXISTS of
// -batch keys each over -conns connections, from just before the server's
// start to the last answer:
//
//	coldserve -bin mmapbloom -file DIR/cold.bloom -keys 100000 -batch 1000 -conns 4
//
// The key is the file's name without ".bloom" (the server's key to file
// name rule). With -warm it skips the drop. Output, one line of key=value
// pairs (startup-seconds: the start to the first PONG):
//
//	mode=serve keys=100000 startup-seconds=0.012 seconds=4.210 keys/s=23753
//
// bench/cold-batch.sh runs it beside fio on the same file (SERVE=...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// deadline bounds a whole run: the server is killed past it.
const deadline = 10 * time.Minute

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "coldserve:", err)
		os.Exit(1)
	}
}

// options are coldserve's flags.
type options struct {
	bin, file          string
	keys, batch, conns int
	warm               bool
}

// run parses args, starts the server, times the answers and writes their
// line to out.
func run(args []string, out io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	asked := keys.Fresh(o.keys)
	if !o.warm {
		if err := files.Drop(o.file); err != nil {
			return err
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	srv := exec.CommandContext(ctx, o.bin, "serve", "--dir", filepath.Dir(o.file), "--addr", addr)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	up, err := waitUp(ctx, addr)
	if err != nil {
		return err
	}
	key := strings.TrimSuffix(filepath.Base(o.file), ".bloom")
	if err := ask(ctx, addr, key, asked, o.batch, o.conns); err != nil {
		return err
	}
	sec := time.Since(start).Seconds()
	_, err = fmt.Fprintf(out, "mode=serve keys=%d startup-seconds=%.3f seconds=%.3f keys/s=%.0f\n",
		len(asked), up.Sub(start).Seconds(), sec, float64(len(asked))/sec)
	return err
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("coldserve", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "mmapbloom", "the mmapbloom command")
	fs.StringVar(&o.file, "file", "", "filter file (DIR/KEY.bloom)")
	fs.IntVar(&o.keys, "keys", 100000, "fresh keys to ask")
	fs.IntVar(&o.batch, "batch", 1000, "keys per BF.MEXISTS")
	fs.IntVar(&o.conns, "conns", 4, "connections asking at once")
	fs.BoolVar(&o.warm, "warm", false, "leave the file in the page cache")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.file == "" || !strings.HasSuffix(o.file, ".bloom") || o.keys < 1 || o.batch < 1 || o.conns < 1 {
		return o, errors.New("need -file DIR/KEY.bloom and -keys, -batch, -conns >= 1")
	}
	return o, nil
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitUp pings addr until it answers and returns when it did.
func waitUp(ctx context.Context, addr string) (time.Time, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for {
		if err := c.Ping(ctx).Err(); err == nil {
			return time.Now(), nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s never answered PING: %w", addr, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// ask sends asked to key as BF.MEXISTS of batch keys each, conns of them
// at once, and checks each reply's length.
func ask(ctx context.Context, addr, key string, asked [][]byte, batch, conns int) error {
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: conns, ReadTimeout: time.Minute})
	defer c.Close()
	next := make(chan [][]byte)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(next)
		for i := 0; i < len(asked); i += batch {
			select {
			case next <- asked[i:min(i+batch, len(asked))]:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for range conns {
		g.Go(func() error {
			for part := range next {
				args := make([]any, 0, len(part)+2)
				args = append(args, "BF.MEXISTS", key)
				for _, k := range part {
					args = append(args, k)
				}
				got, err := c.Do(ctx, args...).Slice()
				if err != nil {
					return err
				}
				if len(got) != len(part) {
					return fmt.Errorf("BF.MEXISTS of %d keys answered %d", len(part), len(got))
				}
			}
			return nil
		})
	}
	return g.Wait()
}
