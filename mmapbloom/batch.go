package mmapbloom

import (
	"fmt"

	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
)

// The batch calls work on chunks of keys in a two-stage pipeline: hash
// every key of the next chunk and prefetch every cache line it will touch,
// then test or set the current chunk, whose lines were prefetched while the
// next chunk was hashed. Misses overlap instead of queueing behind each
// other and behind locked instructions (which do not overlap their
// misses). Results equal the single-key calls in key order. A chunk is
// kernel.ChunkKeys keys (kernel.ChunkKeys/k, at least one, for the
// classic layout, whose keys need k lines each).

// chunk holds the hashed keys of one chunk.
type chunk struct {
	n     int
	start int                                          // offset of the chunk's first key in the batch
	first [kernel.ChunkKeys]uint64                     // blocked: first bit of each key's block
	gs    [kernel.ChunkKeys]uint32                     // blocked: in-block hash
	masks [kernel.ChunkKeys][hashing.BlockWords]uint64 // blocked, when setting: probe masks
	locs  [kernel.ChunkKeys * format.MaxK]uint64       // classic: k positions per key
}

// pipeline yields the hashed chunks of a batch, each prefetched one chunk
// ahead of its use.
type pipeline struct {
	f      *Filter
	keys   [][]byte
	hashes keyHashes
	next   int // offset of the next chunk to hash
	bufs   [2]chunk
	cur    int  // index in bufs of the chunk to yield next
	cold   bool // the filter is cold: pages are requested ahead (batch_cold.go)
	ahead  int  // offset of the first key whose pages are not yet requested
}

// keyHashes are the xxh3 hashes under the filter's seed of a batch's
// keys, for a blocked filter of that scheme (see hashable): when h is
// not nil, the pipeline reads hash i in place of hashing key i or, with
// fill, writes it there as it hashes the key.
type keyHashes struct {
	h    []uint64
	fill bool
}

// of returns the xxh3 hash under seed of key, the batch's key i: read
// from hs, or hashed (and written to hs with fill).
func (hs keyHashes) of(i int, key []byte, seed uint64) uint64 {
	switch {
	case hs.h == nil:
		return xxh3.HashSeed(key, seed)
	case hs.fill:
		hs.h[i] = xxh3.HashSeed(key, seed)
	}
	return hs.h[i]
}

// from returns the hashes of the batch's keys from offset i on (none
// when hs has none).
func (hs keyHashes) from(i int) keyHashes {
	if hs.h == nil {
		return hs
	}
	return keyHashes{hs.h[i:], hs.fill}
}

// start readies p for keys (and their hashes): it hashes and prefetches
// the first chunk.
func (p *pipeline) start(f *Filter, keys [][]byte, hashes keyHashes) {
	p.f, p.keys, p.hashes = f, keys, hashes
	p.cold = f.coldBatch(len(keys))
	p.load(&p.bufs[0])
}

// chunk returns the next hashed chunk (nil at the end), after hashing and
// prefetching the one after it.
func (p *pipeline) chunk() *chunk {
	c := &p.bufs[p.cur]
	if c.n == 0 {
		return nil
	}
	p.cur ^= 1
	p.load(&p.bufs[p.cur])
	return c
}

// load hashes the next chunk of keys into c and prefetches its lines,
// after requesting the pages of the keys ahead when the filter is cold.
func (p *pipeline) load(c *chunk) {
	p.requestAhead()
	f, per := p.f, kernel.ChunkKeys
	if !f.blocked {
		per = max(1, kernel.ChunkKeys/int(f.hdr.K))
	}
	keys := p.keys[p.next:min(p.next+per, len(p.keys))]
	c.n, c.start = len(keys), p.next
	p.next += len(keys)
	if f.blocked {
		for i := range keys {
			block, g := p.block(c.start + i)
			c.first[i], c.gs[i] = block*hashing.BlockBits, g
		}
		kernel.Active.Prefetch(f.words, c.first[:c.n])
		return
	}
	k := int(f.hdr.K)
	for i, key := range keys {
		f.loc.Locate(key, c.locs[i*k:(i+1)*k])
	}
	kernel.Active.Prefetch(f.words, c.locs[:c.n*k])
}

// block returns the block and in-block hash of key i of a blocked
// filter's batch, from its hash when the caller gave the hashes (writing
// the hash when it asked for them).
func (p *pipeline) block(i int) (block uint64, g uint32) {
	if p.hashes.h == nil {
		return p.f.loc.BlockHash(p.keys[i])
	}
	return p.f.loc.BlockOf(p.hashes.of(i, p.keys[i], p.f.hdr.Seed))
}

// maskChunk computes the probe masks of a blocked chunk, for setChunk.
func (f *Filter) maskChunk(c *chunk) {
	if f.blocked {
		kernel.Active.BlockMasks(c.gs[:c.n], f.hdr.K, c.masks[:c.n])
	}
}

// setChunk sets the bits of key i of c (masks computed by maskChunk); with report it says whether
// this call claims the key (claim.go), without whether any was clear before.
func (f *Filter) setChunk(c *chunk, i int, report bool) bool {
	if f.blocked {
		return f.orLine(c.first[i]/hashing.BlockBits, &c.masks[i], report)
	}
	k := int(f.hdr.K)
	return f.setBits(c.locs[i*k:(i+1)*k], report)
}

// testChunk sets out[i] to whether key i of c may be present.
func (f *Filter) testChunk(c *chunk, out []bool) {
	if f.blocked {
		kernel.Active.TestBlocks(f.words, c.first[:c.n], c.gs[:c.n], f.hdr.K, out)
		return
	}
	k := int(f.hdr.K)
	for i := range out {
		out[i] = f.testBits(c.locs[i*k : (i+1)*k])
	}
}

// AddBatch adds every key of keys, with the same effect as calling Add on
// each in order: the count grows by the number of keys that set a bit
// that was clear (by len(keys) for a v1.1 file). Errors as for Add.
func (f *Filter) AddBatch(keys [][]byte) error {
	return f.run(false, true, func() error {
		added := 0
		var p pipeline
		p.start(f, keys, keyHashes{})
		for c := p.chunk(); c != nil; c = p.chunk() {
			if n, ok := f.addBlocks(c); ok {
				added += n
				continue
			}
			f.maskChunk(c)
			for i := range c.n {
				if f.setChunk(c, i, false) {
					added++
				}
			}
		}
		if f.countCalls {
			added = len(keys)
		}
		f.addCount(uint64(added))
		return nil
	})
}

// addBlocks adds the keys of chunk c of a blocked filter in the kernel:
// with plain ORs for a single writer (kernel.OrBlocks), else with atomic
// ORs where the kernel has a loop of its own (kernel.AddBlocks). It
// returns how many keys found a bit clear, or ok false having done
// nothing (a classic filter, or no such kernel).
func (f *Filter) addBlocks(c *chunk) (added int, ok bool) {
	switch {
	case !f.blocked:
		return 0, false
	case f.single:
		return kernel.Active.OrBlocks(f.words, c.first[:c.n], c.gs[:c.n], f.hdr.K), true
	}
	return kernel.Active.AddBlocks(f.words, c.first[:c.n], c.gs[:c.n], f.hdr.K)
}

// TestBatch sets present[i] to Test(keys[i]) for every key. present must
// be at least as long as keys (ErrBadOptions otherwise). Errors as for
// Test; after an error the contents of present are undefined.
func (f *Filter) TestBatch(keys [][]byte, present []bool) error {
	if len(present) < len(keys) {
		return fmt.Errorf("mmapbloom: TestBatch: %d results for %d keys: %w", len(present), len(keys), ErrBadOptions)
	}
	return f.testBatch(keys, keyHashes{}, present)
}

// TestBatchHashes is TestBatch that also sets hashes[i] to the hash of
// keys[i], for a later TestAndAddBatchHashes of some of the same keys,
// which then does not hash them again (dedup tests a batch, then claims
// its new keys). Only a filter of the default layout and scheme
// (blocked, xxh3) hashes a key to one 64-bit value; on another, hashes
// is left as it was and the later call hashes its keys. hashes and
// present must be at least as long as keys (ErrBadOptions otherwise).
// Errors as for TestBatch.
func (f *Filter) TestBatchHashes(keys [][]byte, present []bool, hashes []uint64) error {
	if len(present) < len(keys) || len(hashes) < len(keys) {
		return fmt.Errorf("mmapbloom: TestBatchHashes: %d results and %d hashes for %d keys: %w", len(present), len(hashes), len(keys), ErrBadOptions)
	}
	return f.testBatch(keys, f.hashesOf(hashes, true), present)
}

// hashesOf returns hashes as the pipeline takes them (filled with fill,
// else read), or none for a filter that does not hash keys to one value.
func (f *Filter) hashesOf(hashes []uint64, fill bool) keyHashes {
	if !f.hashable(f.hdr.Seed) {
		return keyHashes{}
	}
	return keyHashes{hashes, fill}
}

// testBatch is TestBatch, with the keys' hashes read or filled (see
// keyHashes).
func (f *Filter) testBatch(keys [][]byte, hashes keyHashes, present []bool) error {
	return f.read(func() error {
		var p pipeline
		p.start(f, keys, hashes)
		for c := p.chunk(); c != nil; c = p.chunk() {
			f.testChunk(c, present[c.start:c.start+c.n])
		}
		return nil
	})
}

// TestAndAddBatch sets present[i] to TestAndAdd(keys[i]) for every key in
// order, so a key repeated within the batch is new only the first time.
// present must be at least as long as keys. Errors as for TestAndAdd.
func (f *Filter) TestAndAddBatch(keys [][]byte, present []bool) error {
	if len(present) < len(keys) {
		return fmt.Errorf("mmapbloom: TestAndAddBatch: %d results for %d keys: %w", len(present), len(keys), ErrBadOptions)
	}
	return f.testAndAddBatch(keys, keyHashes{}, present)
}

// TestAndAddBatchHashes is TestAndAddBatch on keys whose hashes, hashes[i]
// that of keys[i], an earlier TestBatchHashes on this filter set: the
// keys are not hashed again (a filter that does not hash keys to one
// value, see TestBatchHashes, ignores hashes and hashes the keys). A
// hash that is not the key's adds and tests other bits than the key's:
// then the results, and later Tests of the key, are wrong. hashes and
// present must be at least as long as keys (ErrBadOptions otherwise).
// Errors as for TestAndAddBatch.
func (f *Filter) TestAndAddBatchHashes(keys [][]byte, hashes []uint64, present []bool) error {
	if len(present) < len(keys) || len(hashes) < len(keys) {
		return fmt.Errorf("mmapbloom: TestAndAddBatchHashes: %d results and %d hashes for %d keys: %w", len(present), len(hashes), len(keys), ErrBadOptions)
	}
	return f.testAndAddBatch(keys, f.hashesOf(hashes, false), present)
}

// testAndAddBatch is TestAndAddBatch; hashes as for testBatch.
func (f *Filter) testAndAddBatch(keys [][]byte, hashes keyHashes, present []bool) error {
	return f.run(false, true, func() error {
		added := 0
		var p pipeline
		p.start(f, keys, hashes)
		for c := p.chunk(); c != nil; c = p.chunk() {
			f.maskChunk(c)
			for i := range c.n {
				present[c.start+i] = !f.setChunk(c, i, true)
				if !present[c.start+i] {
					added++
				}
			}
		}
		f.addCount(uint64(added))
		return nil
	})
}

// hashable reports whether the batch calls can take keys' xxh3 hashes
// under seed instead of hashing them (a blocked filter with that seed).
func (f *Filter) hashable(seed uint64) bool {
	return f.blocked && f.hdr.Scheme == format.SchemeXXH3Blocked && f.hdr.Seed == seed
}
