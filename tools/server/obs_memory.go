package server

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// memStatsTTL is how long a residency pass over the served filters'
// files (mincore) stays the answer: a scrape every few seconds costs
// one pass at most per period.
const memStatsTTL = 5 * time.Second

// memCache keeps the latest residency pass.
type memCache struct {
	mu       sync.Mutex
	at       time.Time
	resident int64 // bytes of the served filters' files in the page cache; -1 unknown
	peak     atomic.Uint64
}

// filterMem is what INFO memory and bloom report of the open filters.
type filterMem struct {
	open, layers, items, mapped int64
	resident                    int64 // -1: unknown on this system
	residentAt                  time.Time
}

// memStats returns the open filters' counts and sizes, now, and their
// page-cache residency, at most memStatsTTL old.
func (s *Server) memStats() filterMem {
	m, blooms := served(s.store)
	c := &s.obs.mem
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || time.Since(c.at) >= memStatsTTL {
		c.resident, c.at = resident(blooms), time.Now()
	}
	m.resident, m.residentAt = c.resident, c.at
	return m
}

// served returns the counts and sizes of st's open filters, and the
// filters. Sizes are read under the store's lock (store.Each), which the
// idle closer takes before closing a filter.
func served(st *store.Store) (filterMem, []store.Bloom) {
	var m filterMem
	var blooms []store.Bloom
	st.Each(func(e *store.Entry) {
		b := e.Bloom()
		m.open++
		m.layers += int64(b.Layers())
		if n, err := b.Count(); err == nil {
			m.items += int64(n)
		}
		if n, err := b.SizeBytes(); err == nil {
			m.mapped += int64(n)
		}
		blooms = append(blooms, b)
	})
	return m, blooms
}

// resident sums the page-cache-resident bytes of blooms' files, -1 when
// the system cannot tell. It runs outside the store's lock: a filter
// closed since (idle, removed, replaced) answers an error and no longer
// counts.
func resident(blooms []store.Bloom) int64 {
	var sum int64
	for _, b := range blooms {
		n, err := b.Resident()
		if errors.Is(err, errors.ErrUnsupported) {
			return -1
		}
		if err == nil {
			sum += int64(n)
		}
	}
	return sum
}

// dataCounts is what the data directory holds: fixed filter files and
// set directories.
type dataCounts struct{ fixed, sets int64 }

// dataStats lists the data directory.
func (s *Server) dataStats() dataCounts {
	var d dataCounts
	des, _ := os.ReadDir(s.cfg.Dir)
	for _, de := range des {
		if _, set, ok := keyname.KeyOf(de.Name()); ok && set == de.IsDir() {
			if set {
				d.sets++
			} else {
				d.fixed++
			}
		}
	}
	return d
}

func (s *Server) memoryInfo() [][2]string {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	used := ms.HeapAlloc + ms.StackInuse
	peak := s.obs.mem.peak.Load()
	for used > peak && !s.obs.mem.peak.CompareAndSwap(peak, used) {
		peak = s.obs.mem.peak.Load()
	}
	peak = max(peak, used)
	rss := residentSetBytes()
	m := s.memStats()
	frag := "0.00"
	if used > 0 && rss > 0 {
		frag = fmt.Sprintf("%.2f", float64(rss)/float64(used))
	}
	return [][2]string{
		{"used_memory", itoa(int64(used))}, {"used_memory_human", humanBytes(int64(used))},
		{"used_memory_rss", itoa(rss)}, {"used_memory_rss_human", humanBytes(rss)},
		{"used_memory_peak", itoa(int64(peak))}, {"used_memory_peak_human", humanBytes(int64(peak))},
		{"total_system_memory", itoa(totalMemory())}, {"total_system_memory_human", humanBytes(totalMemory())},
		{"maxmemory", "0"}, {"maxmemory_human", "0B"}, {"maxmemory_policy", "noeviction"},
		{"mem_fragmentation_ratio", frag}, {"mem_allocator", "go"},
		{"go_heap_sys", itoa(int64(ms.HeapSys))}, {"go_num_gc", itoa(int64(ms.NumGC))},
		{"go_goroutines", itoa(int64(runtime.NumGoroutine()))},
		{"filters_mapped_bytes", itoa(m.mapped)}, {"filters_resident_bytes", itoa(m.resident)},
		{"filters_resident_age_seconds", itoa(int64(time.Since(m.residentAt).Seconds()))},
	}
}

// humanBytes is Redis's bytesToHuman: B, K, M, G, T with two decimals.
func humanBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 0:
		return "-" + humanBytes(-n)
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.2fK", f/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2fM", f/(1<<20))
	case n < 1<<40:
		return fmt.Sprintf("%.2fG", f/(1<<30))
	}
	return fmt.Sprintf("%.2fT", f/(1<<40))
}

// cpuInfo is INFO cpu: the process's and its children's CPU seconds.
func cpuInfo() [][2]string {
	var self, kids unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &self)
	_ = unix.Getrusage(unix.RUSAGE_CHILDREN, &kids)
	sec := func(tv unix.Timeval) string {
		return fmt.Sprintf("%.6f", float64(tv.Sec)+float64(tv.Usec)/1e6)
	}
	return [][2]string{
		{"used_cpu_sys", sec(self.Stime)}, {"used_cpu_user", sec(self.Utime)},
		{"used_cpu_sys_children", sec(kids.Stime)}, {"used_cpu_user_children", sec(kids.Utime)},
	}
}

// cpuSeconds returns the process's user and system CPU seconds.
func cpuSeconds() (user, sys float64) {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6, float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6
}
