// Package result reads the output of go test -bench, and the lines of
// cmd/procbench in the same format, for cmd/report and cmd/plot.
package result

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Result is one benchmark line, such as
// BenchmarkPeers/lib=blobloom/n=10M/op=add-2  5000000  211.0 ns/op  0 B/op.
type Result struct {
	// Func is the benchmark function: BenchmarkPeers.
	Func string
	// Params are the key=value parts of the name: lib, n, op.
	Params map[string]string
	// Iterations is the count after the name.
	Iterations int
	// Metrics are the values by unit: "ns/op", "allocs/op", "fpr", ...
	Metrics map[string]float64
}

// procsSuffix is the -GOMAXPROCS suffix go test adds to names.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// Parse reads the benchmark lines of r and ignores every other line.
func Parse(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		res, ok, err := parseLine(sc.Text())
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, res)
		}
	}
	return out, sc.Err()
}

// parseLine parses one line; ok is false for a line that is no result
// (a log line, "PASS", a name printed alone before its figures).
func parseLine(line string) (res Result, ok bool, err error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
		return Result{}, false, nil
	}
	iters, err := strconv.Atoi(fields[1])
	if err != nil {
		return Result{}, false, nil
	}
	parts := strings.Split(procsSuffix.ReplaceAllString(fields[0], ""), "/")
	res = Result{Func: parts[0], Params: map[string]string{}, Iterations: iters, Metrics: map[string]float64{}}
	for _, p := range parts[1:] {
		if k, v, found := strings.Cut(p, "="); found {
			res.Params[k] = v
		}
	}
	for i := 2; i < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, false, fmt.Errorf("result: bad value %q in %q", fields[i], line)
		}
		res.Metrics[fields[i+1]] = v
	}
	return res, true, nil
}

// ReadFiles parses every file in order.
func ReadFiles(paths []string) (Set, error) {
	var all Set
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		rs, err := Parse(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		all = append(all, rs...)
	}
	return all, nil
}
