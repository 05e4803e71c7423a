package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// runScale is the scale subcommand.
func runScale(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the filter file")
	prog := fs.String("addproc", besideSelf("addproc"), "the addproc program")
	nFlag := fs.String("n", "20M", "keys added in all")
	modes := fs.String("modes", "batch,single", "addproc modes to run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := keys.ParseN(*nFlag)
	if err != nil {
		return err
	}
	if *dir == "" || n < 2 {
		return fmt.Errorf("need -dir and -n >= 2")
	}
	path := filepath.Join(*dir, "scale.bloom")
	defer func() { _ = os.Remove(path) }()
	for _, mode := range strings.Split(*modes, ",") {
		one, err := addRate(*prog, path, mode, uint64(n), 1)
		if err != nil {
			return err
		}
		two, err := addRate(*prog, path, mode, uint64(n), 2)
		if err != nil {
			return err
		}
		name := "BenchmarkScale/mode=" + mode
		if err := printLine(out, name+"/procs=1", n, metric{one.rate, "adds/s"}, metric{one.cpuPerAdd, "cpu-ns/add"}); err != nil {
			return err
		}
		err = printLine(out, name+"/procs=2", n, metric{two.rate, "adds/s"}, metric{two.cpuPerAdd, "cpu-ns/add"},
			metric{two.rate / one.rate, "speedup"})
		if err != nil {
			return err
		}
	}
	return nil
}

// scaleRun is what one run of one or more processes measured.
type scaleRun struct {
	rate      float64 // adds per second, all processes together
	cpuPerAdd float64 // CPU nanoseconds per add, summed over processes
}

// addRate writes a new filter file for n keys, has procs addproc
// processes add an equal share of keys [0, n) at once, and checks the
// count. The rate is n over the span from the first start to the last end.
func addRate(prog, path, mode string, n uint64, procs int) (scaleRun, error) {
	if err := files.StoreForKeys(path, n, nil); err != nil {
		return scaleRun{}, err
	}
	argv := make([][]string, procs)
	for i := range procs {
		from, to := n*uint64(i)/uint64(procs), n*uint64(i+1)/uint64(procs)
		argv[i] = []string{"-file", path, "-mode", mode, "-wait",
			"-from", fmt.Sprint(from), "-to", fmt.Sprint(to)}
	}
	results, err := runTogether(prog, argv)
	if err != nil {
		return scaleRun{}, err
	}
	if err := checkCount(path, n); err != nil {
		return scaleRun{}, err
	}
	first, last := results[0].num("start-unix-ns"), results[0].num("end-unix-ns")
	cpu := 0.0
	for _, kv := range results {
		first, last = min(first, kv.num("start-unix-ns")), max(last, kv.num("end-unix-ns"))
		cpu += kv.num("cpu-ns")
	}
	return scaleRun{rate: float64(n) / ((last - first) / 1e9), cpuPerAdd: cpu / float64(n)}, nil
}

// checkCount checks that the file recorded the n adds: a key that
// already tested present (a false positive, about n*P of them at most)
// does not count, so the count may fall short by a few, never exceed n.
func checkCount(path string, n uint64) error {
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	got, err := f.Count()
	if err != nil {
		return err
	}
	if got > n || n-got > uint64(10*float64(n)*files.P)+3 {
		return fmt.Errorf("%s: count %d after adding %d keys", path, got, n)
	}
	return nil
}
