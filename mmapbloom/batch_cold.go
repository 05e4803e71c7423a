package mmapbloom

import (
	"sync/atomic"

	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Cold batches. The batch pipelines prefetch the cache lines of a chunk
// ahead, but a prefetch of a line whose page is not in memory is dropped,
// and the fault that then reads the page blocks its thread: a batch on a
// filter whose pages are on disk would wait on one read at a time. When a
// filter is cold (its residency sample found a page out of memory), a
// batch asks the kernel for the pages of its keys coldPages pages ahead of
// their probes (mapping.WillNeed: MADV_WILLNEED, which queues the read and
// returns), so that that many reads are in flight at once and the faults
// find their pages read or being read. A warm filter pays an atomic add
// and load per batch, and a residency sample (mincore of 32 pages) every
// residencyRecheck keys; a cold one samples every coldRecheck keys, so
// that it stops requesting pages soon after its batches brought it into
// memory.

// coldPages is how many pages a cold batch keeps requested ahead of its
// probes: the queue depth it offers the device, deep enough for an NVMe
// drive; a device that queues fewer makes a request wait for a slot,
// which costs the batch nothing it would not wait for anyway. Measured
// in docs/operations.md ("Cold filters: batches read their pages ahead").
const coldPages = 128

// residencyRecheck is how many keys of batch calls pass between two
// residency samples of a filter found in memory; coldRecheck, of one found
// cold, which its batches may bring into memory (a cold key costs a
// request and a read, far more than its share of a sample, 32 mincore
// calls: 20-30 us here).
const (
	residencyRecheck = 1 << 18
	coldRecheck      = 1 << 10
)

// residency is a filter's decision whether its batches request their
// pages ahead (cold), from a sample of its mapping's residency refreshed
// every residencyRecheck keys (coldRecheck while cold). Safe for concurrent use: two batches that
// both sample store the same kind of answer.
type residency struct {
	budget   atomic.Int64 // keys left before the next sample (the first batch samples)
	cold     atomic.Bool  // the last sample found a page out of memory
	inMemory bool         // set before use for private memory (a Builder's): never cold
}

// coldFor reports whether a batch of n keys should request its pages
// ahead, after charging n keys to the budget and, when it is spent,
// taking a new sample: resident reports whether the mapping is in memory.
func (r *residency) coldFor(n int, resident func() bool) bool {
	if r.inMemory {
		return false
	}
	if r.budget.Add(-int64(n)) < 0 {
		cold := !resident()
		r.budget.Store(residencyRecheck)
		if cold {
			r.budget.Store(coldRecheck)
		}
		r.cold.Store(cold)
	}
	return r.cold.Load()
}

// coldBatch reports whether a batch of n keys on f should request its
// pages ahead (see residency).
func (f *Filter) coldBatch(n int) bool {
	return f.res.coldFor(n, func() bool { return mapping.Resident(f.data) })
}

// willNeed asks the kernel to read the page holding bit of the array,
// without waiting (mapping.WillNeed).
func (f *Filter) willNeed(bit uint64) {
	mapping.WillNeed(f.data, format.HeaderSize+bit/8)
}

// keysAhead is how many keys of a cold batch keep coldPages pages
// requested when each key touches pages pages (at least one key).
func keysAhead(pages int) int { return max(1, coldPages/max(1, pages)) }

// requestAhead asks for the pages of the keys of p from p.ahead up to
// keysAhead keys past p.next, the offset of the next chunk to hash: the
// pages of the chunks hashed next are then being read while this one is
// probed. It does nothing for a warm batch.
func (p *pipeline) requestAhead() {
	if !p.cold {
		return
	}
	f, pages := p.f, 1
	if !f.blocked {
		pages = int(f.hdr.K)
	}
	to := min(p.next+keysAhead(pages), len(p.keys))
	for ; p.ahead < to; p.ahead++ {
		if f.blocked {
			block, _ := p.block(p.ahead)
			f.willNeed(block * hashing.BlockBits)
			continue
		}
		var buf [format.MaxK]uint64
		for _, bit := range f.loc.Locate(p.keys[p.ahead], buf[:f.hdr.K]) {
			f.willNeed(bit)
		}
	}
}

// coldLayers sets p.cold[l] to whether layer l's batches request their
// pages ahead (coldBatch, charged with the batch's keys), and returns how
// many layers do.
func (p *fusedPipe) coldLayers() (n int) {
	p.cold = p.cold[:0]
	for _, f := range p.layers {
		cold := f.coldBatch(len(p.keys))
		p.cold = append(p.cold, cold)
		if cold {
			n++
		}
	}
	return n
}

// requestAhead is pipeline.requestAhead for the fused pipeline: the page
// of each key in every cold layer.
func (p *fusedPipe) requestAhead() {
	if p.colds == 0 {
		return
	}
	to := min(p.next+keysAhead(p.colds), len(p.keys))
	for ; p.ahead < to; p.ahead++ {
		h := xxh3.HashSeed(p.keys[p.ahead], p.seed)
		for l, f := range p.layers {
			if p.cold[l] {
				block, _ := f.loc.BlockOf(h)
				f.willNeed(block * hashing.BlockBits)
			}
		}
	}
}
