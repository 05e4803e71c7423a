package mmapbloom

import (
	"fmt"
	"sync"
)

// The batch calls of a Set run on chunks of setChunk keys; each chunk
// checks the generation (and rotates or grows the set) like a single-key
// call. Within a chunk every layer is probed through its own batch
// pipeline (batch.go: the keys hashed and their cache lines prefetched
// kernel.ChunkKeys at a time, one line per key for a blocked layer), newest layer
// first, and each layer sees only the keys no newer layer holds, so a
// present key stops at the layer that holds it, and an absent key costs
// one line per live layer, with up to kernel.ChunkKeys lines in flight.

// setChunk is the number of keys a Set's batch call handles between two
// generation checks.
const setChunk = 256

// pendingKeys gathers the keys of a chunk not yet found present, for one
// layer's batch call. Every layer has the set's seed, so each key is
// hashed once (xxh3, for the blocked layers) whatever the layers it visits.
type pendingKeys struct {
	n      int
	seed   uint64    // the set's seed
	given  keyHashes // the chunk's hashes, when the caller gives them or asks for them
	hashed bool      // all holds the chunk's hashes
	idx    [setChunk]int
	keys   [setChunk][]byte
	res    [setChunk]bool
	all    [setChunk]uint64 // xxh3 hash of each key of the chunk
	hashes [setChunk]uint64 // of the gathered keys
}

// pendingPool recycles pendingKeys (8 KiB: the keys escape to the heap
// through the layers' batch calls).
var pendingPool = sync.Pool{New: func() any { return new(pendingKeys) }}

// getPending returns an empty pendingKeys from the pool for a set of
// seed seed, for a chunk whose hashes are given (see keyHashes); release
// it with put.
func getPending(seed uint64, given keyHashes) *pendingKeys {
	p := pendingPool.Get().(*pendingKeys)
	p.seed, p.given, p.hashed = seed, given, false
	return p
}

// put clears the key references and returns p to the pool.
func (p *pendingKeys) put() {
	clear(p.keys[:p.n])
	p.n, p.given = 0, keyHashes{}
	pendingPool.Put(p)
}

// hashChunk sets p.all to the hashes of the chunk's keys, once: read
// from p.given, or hashed (and written there when it asks for them).
func (p *pendingKeys) hashChunk(keys [][]byte) {
	if p.hashed {
		return
	}
	for i, key := range keys {
		p.all[i] = p.given.of(i, key, p.seed)
	}
	p.hashed = true
}

// gatherHashes fills p.hashes for the gathered keys, hashing the chunk
// keys once.
func (p *pendingKeys) gatherHashes(keys [][]byte) []uint64 {
	p.hashChunk(keys)
	for j := range p.n {
		p.hashes[j] = p.all[p.idx[j]]
	}
	return p.hashes[:p.n]
}

// testBatch runs layer's TestBatch on the gathered keys, with their
// hashes when the layer takes them.
func (p *pendingKeys) testBatch(layer *Filter, keys [][]byte) error {
	var hs keyHashes
	if layer.hashable(p.seed) {
		hs.h = p.gatherHashes(keys)
	}
	return layer.testBatch(p.keys[:p.n], hs, p.res[:p.n])
}

// testAndAddBatch runs layer's TestAndAddBatch on the gathered keys, with
// their hashes when the layer takes them.
func (p *pendingKeys) testAndAddBatch(layer *Filter, keys [][]byte) error {
	var hs keyHashes
	if layer.hashable(p.seed) {
		hs.h = p.gatherHashes(keys)
	}
	return layer.testAndAddBatch(p.keys[:p.n], hs, p.res[:p.n])
}

// gather collects the keys whose present entry is false.
func (p *pendingKeys) gather(keys [][]byte, present []bool) {
	p.n = 0
	for i, key := range keys {
		if !present[i] {
			p.idx[p.n], p.keys[p.n] = i, key
			p.n++
		}
	}
}

// scatter sets present for the gathered keys the layer answered true
// for, and returns how many those were.
func (p *pendingKeys) scatter(present []bool) (hits int) {
	for j := range p.n {
		if p.res[j] {
			present[p.idx[j]] = true
			hits++
		}
	}
	return hits
}

// testLayers sets present[i] for the keys not yet present that a layer
// holds, asking layers newest first.
func (p *pendingKeys) testLayers(layers []*Filter, keys [][]byte, present []bool) error {
	for l := len(layers) - 1; l >= 0; l-- {
		if p.gather(keys, present); p.n == 0 {
			return nil
		}
		if err := p.testBatch(layers[l], keys); err != nil {
			return err
		}
		p.scatter(present)
	}
	return nil
}

// AddBatch adds every key of keys, with the same effect as calling Add
// on each in order. Errors as for Add.
func (s *Set) AddBatch(keys [][]byte) error {
	return s.batch(keys, keyHashes{}, nil, func(v *setView, keys [][]byte, hs keyHashes, present []bool) (int, error) {
		return s.insertChunk(v, keys, hs, present, true)
	})
}

// TestBatch sets present[i] to Test(keys[i]) for every key. present must
// be at least as long as keys (ErrBadOptions otherwise). Errors as for
// Test; after an error the contents of present are undefined.
func (s *Set) TestBatch(keys [][]byte, present []bool) error {
	if len(present) < len(keys) {
		return fmt.Errorf("mmapbloom: TestBatch: %d results for %d keys: %w", len(present), len(keys), ErrBadOptions)
	}
	return s.testBatch(keys, keyHashes{}, present)
}

// TestBatchHashes is TestBatch that also sets hashes[i] to the hash of
// keys[i] (its xxh3 under the set's seed, whatever the set's layers), for
// a later TestAndAddBatchHashes of some of the same keys, which then does
// not hash them again (dedup tests a batch, then claims its new keys; as
// Filter.TestBatchHashes). hashes and present must be at least as long as
// keys (ErrBadOptions otherwise). Errors as for TestBatch.
func (s *Set) TestBatchHashes(keys [][]byte, present []bool, hashes []uint64) error {
	if len(present) < len(keys) || len(hashes) < len(keys) {
		return fmt.Errorf("mmapbloom: TestBatchHashes: %d results and %d hashes for %d keys: %w", len(present), len(hashes), len(keys), ErrBadOptions)
	}
	return s.testBatch(keys, keyHashes{hashes, true}, present)
}

// testBatch is TestBatch, with the keys' hashes read or filled (see
// keyHashes).
func (s *Set) testBatch(keys [][]byte, hashes keyHashes, present []bool) error {
	return s.batch(keys, hashes, present, func(v *setView, keys [][]byte, hs keyHashes, present []bool) (int, error) {
		return len(keys), testIn(v.live(s.now), v.m.Seed, keys, hs, present)
	})
}

// testIn sets present[i] to whether a layer of layers may hold keys[i]:
// on the fused pipeline when every layer is fusable, else layer by layer.
// With hs filled, every key's hash is written, whichever layers it reaches.
func testIn(layers []*Filter, seed uint64, keys [][]byte, hs keyHashes, present []bool) error {
	if fusable(layers, seed) {
		return testFused(layers, seed, keys, hs, present)
	}
	clear(present)
	p := getPending(seed, hs)
	defer p.put()
	if hs.fill {
		p.hashChunk(keys)
	}
	return p.testLayers(layers, keys, present)
}

// TestAndAddBatch sets present[i] to TestAndAdd(keys[i]) for every key
// in order, so a key repeated within the batch is new only the first
// time. present must be at least as long as keys. Errors as for
// TestAndAdd.
func (s *Set) TestAndAddBatch(keys [][]byte, present []bool) error {
	if len(present) < len(keys) {
		return fmt.Errorf("mmapbloom: TestAndAddBatch: %d results for %d keys: %w", len(present), len(keys), ErrBadOptions)
	}
	return s.testAndAddBatch(keys, keyHashes{}, present)
}

// TestAndAddBatchHashes is TestAndAddBatch on keys whose hashes, hashes[i]
// that of keys[i], an earlier TestBatchHashes on this set set: the keys
// are not hashed again (a classic layer ignores hashes and hashes the
// keys). A hash that is not the key's adds and tests other bits than the
// key's: then the results, and later Tests of the key, are wrong. hashes
// and present must be at least as long as keys (ErrBadOptions otherwise).
// Errors as for TestAndAddBatch.
func (s *Set) TestAndAddBatchHashes(keys [][]byte, hashes []uint64, present []bool) error {
	if len(present) < len(keys) || len(hashes) < len(keys) {
		return fmt.Errorf("mmapbloom: TestAndAddBatchHashes: %d results and %d hashes for %d keys: %w", len(present), len(hashes), len(keys), ErrBadOptions)
	}
	return s.testAndAddBatch(keys, keyHashes{hashes, false}, present)
}

// testAndAddBatch is TestAndAddBatch; hashes as for testBatch.
func (s *Set) testAndAddBatch(keys [][]byte, hashes keyHashes, present []bool) error {
	return s.batch(keys, hashes, present, func(v *setView, keys [][]byte, hs keyHashes, present []bool) (int, error) {
		return s.insertChunk(v, keys, hs, present, false)
	})
}

// chunkOp handles a chunk of keys, with their hashes (see keyHashes) and
// their part of present, on view v; it returns how many of them, from
// the first, it handled.
type chunkOp func(v *setView, keys [][]byte, hs keyHashes, present []bool) (int, error)

// batch runs op on chunks of keys, each under its own generation check,
// with the matching part of hashes and of present, or of a scratch slice
// when present is nil.
func (s *Set) batch(keys [][]byte, hashes keyHashes, present []bool, op chunkOp) error {
	var scratch [setChunk]bool
	for start := 0; start < len(keys); {
		end := min(start+setChunk, len(keys))
		out := scratch[:end-start]
		if present != nil {
			out = present[start:end]
		}
		var done int
		err := s.do(func(v *setView) (err error) {
			done, err = op(v, keys[start:end], hashes.from(start), out)
			return err
		})
		if err != nil {
			return err
		}
		start += done
	}
	return nil
}

// insertChunk is insert for the first keys of a chunk (add true:
// AddBatch): for a set that grows, as many as the growth check allows
// before its next reading (see checkInterval), after adding a layer when
// the newest is full and some key of the chunk is new.
func (s *Set) insertChunk(v *setView, keys [][]byte, hs keyHashes, present []bool, add bool) (int, error) {
	v, err := s.writable(v)
	if err != nil {
		return 0, err
	}
	if v.full() {
		if all, err := s.chunkPresent(v, keys, hs, present, add); err != nil || all {
			return len(keys), err
		}
		if v, err = s.grow(v); err != nil {
			return 0, err
		}
	}
	if v.m.Grows() {
		room := min(v.room(), len(keys))
		keys, present = keys[:room], present[:room]
	}
	return len(keys), s.insertKeys(v, keys, hs, present, add)
}

// chunkPresent sets present for keys where an insert looks for them
// before it adds them (v.held, and the newest layer), and reports whether
// every key is there: then the chunk adds nothing, and a full set need not
// grow for it.
func (s *Set) chunkPresent(v *setView, keys [][]byte, hs keyHashes, present []bool, add bool) (bool, error) {
	older, _ := v.split(s.now)
	held := v.held(older, v.addsAlways(add))
	if err := testIn(v.layers[len(v.layers)-1-len(held):], v.m.Seed, keys, hs, present); err != nil {
		return false, err
	}
	for _, ok := range present {
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// insertKeys adds keys to v's newest layer and sets present, on the
// fused pipeline when every layer is fusable and a call that adds keys
// always need not look in the current window's older layers (v.held).
func (s *Set) insertKeys(v *setView, keys [][]byte, hs keyHashes, present []bool, add bool) error {
	older, active := v.split(s.now)
	always := v.addsAlways(add)
	held := v.held(older, always)
	var added int
	var err error
	if layers := v.layers[len(v.layers)-1-len(older):]; fusable(layers, v.m.Seed) && !(always && len(held) > 0) { // older, then active
		added, err = insertFused(layers, v.m.Seed, keys, hs, present, always, add)
	} else {
		added, err = insertLayers(held, older, active, v.m.Seed, keys, hs, present, always, add)
	}
	if err != nil {
		return err
	}
	return s.noteAdds(v, uint64(added))
}

// insertLayers is insertKeys one layer at a time: the held layers
// (v.held: older, or for a call that adds keys always the current
// window's older layers) are asked newest first for the keys no newer one
// holds, then the newest takes the keys none holds. A TestAndAdd that
// adds keys always then asks the older layers for the keys it added. It
// returns how many keys set a clear bit of the newest layer.
func insertLayers(held, older []*Filter, active *Filter, seed uint64, keys [][]byte, hs keyHashes, present []bool, always, add bool) (added int, err error) {
	clear(present)
	p := getPending(seed, hs)
	defer p.put()
	if err := p.testLayers(held, keys, present); err != nil {
		return 0, err
	}
	if p.gather(keys, present); p.n > 0 {
		if err := p.testAndAddBatch(active, keys); err != nil {
			return 0, err
		}
		added = p.n - p.scatter(present)
	}
	if always && !add {
		return added, p.testLayers(older, keys, present)
	}
	return added, nil
}
