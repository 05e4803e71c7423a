package main

import (
	"fmt"
	"runtime"
	"time"
)

// query answers whether a key may be in an open filter.
type query func(key []byte) (bool, error)

// opener opens the filter file at path and returns its query and the
// function that closes it.
type opener func(path string) (query, func() error, error)

// openers are the libraries coldstart knows, by -lib name.
var openers = map[string]opener{
	"mmapbloom":     openStore,
	"bitsandblooms": openBitsAndBlooms,
}

// result is what one probe measured.
type result struct {
	elapsed             time.Duration
	present             bool
	heap                bool // the heap fields are set
	heapOpen, heapQuery uint64
}

func (r result) String() string {
	s := fmt.Sprintf("elapsed-ns=%d present=%t", r.elapsed.Nanoseconds(), r.present)
	if r.heap {
		s += fmt.Sprintf(" heap-open-bytes=%d heap-query-bytes=%d", r.heapOpen, r.heapQuery)
	}
	return s
}

// probe times open plus one query of key. With heap it then measures the
// heap in use before and after a second query (the first one's answer and
// time are unaffected).
func probe(open opener, path string, key []byte, heap bool) (result, error) {
	start := time.Now()
	q, closeFn, err := open(path)
	if err != nil {
		return result{}, err
	}
	present, err := q(key)
	elapsed := time.Since(start)
	if err != nil {
		_ = closeFn()
		return result{}, err
	}
	r := result{elapsed: elapsed, present: present, heap: heap}
	if heap {
		r.heapOpen = heapInuse()
		if _, err := q(key); err != nil {
			_ = closeFn()
			return result{}, err
		}
		r.heapQuery = heapInuse()
		runtime.KeepAlive(q) // the filter must stay live through the measurement
	}
	return r, closeFn()
}

// heapInuse collects garbage and returns the bytes of heap spans in use.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
