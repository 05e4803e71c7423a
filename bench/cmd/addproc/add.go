package main

import (
	"fmt"
	"time"

	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// batchSize is the number of keys per AddBatch call.
const batchSize = 1024

// adder adds keys to f.
type adder func(f *mmapbloom.Filter, keys [][]byte) error

// adders are the -mode values.
var adders = map[string]adder{
	"batch":  addBatches,
	"single": addSingles,
}

func addBatches(f *mmapbloom.Filter, keys [][]byte) error {
	for i := 0; i < len(keys); i += batchSize {
		if err := f.AddBatch(keys[i:min(i+batchSize, len(keys))]); err != nil {
			return err
		}
	}
	return nil
}

func addSingles(f *mmapbloom.Filter, keys [][]byte) error {
	for _, k := range keys {
		if err := f.Add(k); err != nil {
			return err
		}
	}
	return nil
}

// result is what one process measured, with wall-clock ends so that a
// driver can merge several processes' spans.
type result struct {
	adds       int
	start, end time.Time
	cpu        time.Duration // CPU time of the adds, user plus system
}

func (r result) String() string {
	rate := float64(r.adds) / r.end.Sub(r.start).Seconds()
	return fmt.Sprintf("adds=%d start-unix-ns=%d end-unix-ns=%d adds-per-sec=%.0f cpu-ns=%d",
		r.adds, r.start.UnixNano(), r.end.UnixNano(), rate, r.cpu.Nanoseconds())
}

// addRange generates keys [from, to), opens the file, calls start (when
// not nil), and times the adds.
func addRange(path string, from, to uint64, add adder, start func() error) (result, error) {
	set := keys.Generate(keys.Present, from, to)
	f, err := mmapbloom.Open(path, nil)
	if err != nil {
		return result{}, err
	}
	if start != nil {
		if err := start(); err != nil {
			_ = f.Close()
			return result{}, err
		}
	}
	cpu0 := cpuTime()
	r := result{adds: set.Len(), start: time.Now()}
	err = add(f, set.Keys())
	r.end = time.Now()
	r.cpu = cpuTime() - cpu0
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return r, err
}
