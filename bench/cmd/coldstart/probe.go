package main

import (
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"runtime"
	"time"
)

// filter is an open filter: its single and batch queries and the
// function that closes it.
type filter struct {
	test  func(key []byte) (bool, error)
	batch func(keys [][]byte, out []bool) error
	close func() error
}

// opener opens the filter file at path.
type opener func(path string) (filter, error)

// openers are the libraries coldstart knows, by -lib name.
var openers = map[string]opener{
	"mmapbloom":      openStore(nil),
	"mmapbloom-huge": openStore(&mmapbloom.OpenOptions{HugePages: true}),
	"bitsandblooms":  openBitsAndBlooms,
}

// result is what one run measured.
type result struct {
	elapsed             time.Duration
	present             bool // the first (or only) key's answer
	probes              int  // keys queried
	found               int  // of which present
	heap                bool // the heap fields are set
	heapOpen, heapQuery uint64
}

func (r result) String() string {
	s := fmt.Sprintf("elapsed-ns=%d present=%t", r.elapsed.Nanoseconds(), r.present)
	if r.probes > 1 {
		s += fmt.Sprintf(" probes=%d found=%d", r.probes, r.found)
	}
	if r.heap {
		s += fmt.Sprintf(" heap-open-bytes=%d heap-query-bytes=%d", r.heapOpen, r.heapQuery)
	}
	return s
}

// probe times open plus the queries of keys: one call per key, or with
// batch one batch call for them all. With heap it then measures the heap
// in use before and after another query of the first key (the timed
// answers are unaffected).
func probe(open opener, path string, keys [][]byte, batch, heap bool) (result, error) {
	out := make([]bool, len(keys))
	start := time.Now()
	f, err := open(path)
	if err != nil {
		return result{}, err
	}
	if batch {
		err = f.batch(keys, out)
	} else {
		for i, key := range keys {
			if out[i], err = f.test(key); err != nil {
				break
			}
		}
	}
	elapsed := time.Since(start)
	if err != nil {
		_ = f.close()
		return result{}, err
	}
	r := result{elapsed: elapsed, present: out[0], probes: len(keys), heap: heap}
	for _, p := range out {
		if p {
			r.found++
		}
	}
	if heap {
		r.heapOpen = heapInuse()
		if _, err := f.test(keys[0]); err != nil {
			_ = f.close()
			return result{}, err
		}
		r.heapQuery = heapInuse()
		runtime.KeepAlive(f) // the filter must stay live through the measurement
	}
	return r, f.close()
}

// heapInuse collects garbage and returns the bytes of heap spans in use.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
