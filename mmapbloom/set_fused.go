package mmapbloom

import (
	"sync"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// The fused batch pipeline of a Set whose live layers are all blocked
// layers with the set's seed (the default): each key is hashed once, its
// block in every layer is computed from that hash, and the cache lines of
// all layers are prefetched together, kernel.ChunkKeys keys ahead of their use,
// so that a key absent from L layers costs L misses that overlap instead
// of L misses in turn. The layers are then probed, inside the fault
// guards of every layer at once (guardLayers), by the multi-layer kernel
// (kernel.TestLayers: each key's probes computed once, then tested against each
// layer's line, newest first, stopping at a hit) or, where that kernel
// does not exist (the generic kernel, a layer with k > 16), by its
// pure-Go twin anyHolds. Sets with a classic layer take the
// per-layer path of set_batch.go.

// fusedPiece holds the hashed keys of one piece of a batch.
type fusedPiece struct {
	n     int
	start int                                          // offset of the piece's first key in the batch
	gs    [kernel.ChunkKeys]uint32                     // in-block hash of each key (the same in every layer)
	first [][kernel.ChunkKeys]uint64                   // per layer: first bit of each key's block
	masks [kernel.ChunkKeys][hashing.BlockWords]uint64 // newest layer, when setting: probe masks of the keys it lacks
}

// fusedPipe yields the hashed pieces of a batch over layers (oldest
// first), each prefetched one piece ahead of its use.
type fusedPipe struct {
	layers []*Filter
	seed   uint64
	keys   [][]byte
	hashes keyHashes // the keys' hashes, when the caller gives them or asks for them
	next   int
	bufs   [2]fusedPiece
	cur    int
	hit    [kernel.ChunkKeys]bool // scratch for the newest layer's answers (set)
	lines  []kernel.Layer         // the layers, for kernel.TestLayers and LocateLayers
	lanes  bool                   // every layer has k <= kernel.MaxLaneK: TestLayers applies
	cold   []bool                 // per layer: its pages are requested ahead (batch_cold.go)
	colds  int                    // how many layers are cold
	ahead  int                    // offset of the first key whose pages are not yet requested
}

// fusedPool recycles fusedPipes (their per-layer arrays grow to the
// largest number of layers seen).
var fusedPool = sync.Pool{New: func() any { return new(fusedPipe) }}

// fusable reports whether every layer takes keys hashed with seed, so
// that the fused pipeline applies.
func fusable(layers []*Filter, seed uint64) bool {
	for _, f := range layers {
		if !f.hashable(seed) {
			return false
		}
	}
	return true
}

// startFused returns a pipeline over layers for keys (and their hashes,
// see keyHashes), its first piece hashed and prefetched; release it with
// put. The caller is inside the guards of every layer.
func startFused(layers []*Filter, seed uint64, keys [][]byte, hashes keyHashes) *fusedPipe {
	p := fusedPool.Get().(*fusedPipe)
	p.layers, p.seed, p.keys, p.hashes, p.next, p.cur, p.ahead = layers, seed, keys, hashes, 0, 0, 0
	p.lines, p.lanes = p.kernelLayers(p.lines[:0])
	p.colds = p.coldLayers()
	for i := range p.bufs {
		if cap(p.bufs[i].first) < len(layers) {
			p.bufs[i].first = make([][kernel.ChunkKeys]uint64, len(layers))
		}
		p.bufs[i].first = p.bufs[i].first[:len(layers)]
	}
	p.load(&p.bufs[0])
	return p
}

// kernelLayers appends the kernel.Layer of each layer to dst, and reports
// whether every layer has at most kernel.MaxLaneK probes.
func (p *fusedPipe) kernelLayers(dst []kernel.Layer) (_ []kernel.Layer, lanes bool) {
	lanes = true
	for _, f := range p.layers {
		lanes = lanes && f.hdr.K <= kernel.MaxLaneK
		l := kernel.Layer{Words: uint64(mapping.Addr(f.words)), Lanes: uint32(1<<min(f.hdr.K, kernel.MaxLaneK) - 1), NBlocks: f.hdr.M / hashing.BlockBits}
		for j := range min(f.hdr.K, kernel.MaxLaneK) {
			l.Wanted[j] = ^uint32(0)
		}
		dst = append(dst, l)
	}
	return dst, lanes
}

// put drops the references to the caller's layers and keys and returns p
// to the pool.
func (p *fusedPipe) put() {
	p.layers, p.keys, p.hashes = nil, nil, keyHashes{}
	fusedPool.Put(p)
}

// piece returns the next hashed piece (nil at the end), after hashing and
// prefetching the one after it.
func (p *fusedPipe) piece() *fusedPiece {
	c := &p.bufs[p.cur]
	if c.n == 0 {
		return nil
	}
	p.cur ^= 1
	p.load(&p.bufs[p.cur])
	return c
}

// load hashes the next piece of keys into c and prefetches its line in
// every layer, after requesting the pages of the keys ahead in the cold
// layers.
func (p *fusedPipe) load(c *fusedPiece) {
	p.requestAhead()
	keys := p.keys[p.next:min(p.next+kernel.ChunkKeys, len(p.keys))]
	c.n, c.start = len(keys), p.next
	p.next += len(keys)
	var hs [kernel.ChunkKeys]uint64
	for i, key := range keys {
		hs[i] = p.hashes.of(c.start+i, key, p.seed)
		c.gs[i] = uint32(hs[i])
	}
	if kernel.Active.LocateLayers(p.lines, c.first, hs[:c.n]) {
		return
	}
	for l, f := range p.layers {
		first := &c.first[l]
		for i := range c.n {
			block, _ := f.loc.BlockOf(hs[i])
			first[i] = block * hashing.BlockBits
		}
		kernel.Active.Prefetch(f.words, first[:c.n])
	}
}

// test sets out[i] to whether a layer of layers[from:to] holds key i of
// c, for every key of c (false when from == to).
func (p *fusedPipe) test(c *fusedPiece, from, to int, out []bool) {
	if p.lanes && kernel.Active.TestLayers(p.lines[from:to], c.first[from:to], c.gs[:c.n], out) {
		return
	}
	for i := range c.n {
		out[i] = p.anyHolds(c, i, from, to)
	}
}

// anyHolds is the pure-Go multi-layer test of key i of c: each layer's
// line, newest first, is screened with the key's first screenProbes
// probes (computed once), and only a line that has them all is tested
// with every probe (kernel.TestLine), until a layer holds the key. A key absent
// from a layer about half full fails the screen with probability
// 1 - 2^-screenProbes: the branch on it is well predicted, where a
// branch on each probe would be mispredicted about once a layer.
func (p *fusedPipe) anyHolds(c *fusedPiece, i, from, to int) bool {
	g := c.gs[i]
	var s screen
	for j, mul := range hashing.PhiPow[:screenProbes] {
		h := g * mul
		s.word[j], s.bit[j] = h>>29, 1<<((h>>23)&63)
	}
	for l := to - 1; l >= from; l-- {
		f, first := p.layers[l], c.first[l][i]>>6
		line := (*[hashing.BlockWords]uint64)(f.words[first : first+hashing.BlockWords])
		if (f.hdr.K < screenProbes || s.passes(line)) && kernel.TestLine(line[:], g, f.hdr.K) {
			return true
		}
	}
	return false
}

// screenProbes is the number of probes anyHolds screens a line with.
const screenProbes = 4

// screen holds the first screenProbes probes of a key: word and bit in
// it.
type screen struct {
	word [screenProbes]uint32
	bit  [screenProbes]uint64
}

// passes reports whether every probe of s is set in line, without a
// branch on each (written out: a loop over the array would copy it).
func (s *screen) passes(line *[hashing.BlockWords]uint64) bool {
	const w = hashing.BlockWords - 1
	return s.bit[0]&^atomic.LoadUint64(&line[s.word[0]&w])|
		s.bit[1]&^atomic.LoadUint64(&line[s.word[1]&w])|
		s.bit[2]&^atomic.LoadUint64(&line[s.word[2]&w])|
		s.bit[3]&^atomic.LoadUint64(&line[s.word[3]&w]) == 0
}

// The screen is written out for 4 probes: a compile error here means
// passes needs the new number.
var _ [0]struct{} = [screenProbes - 4]struct{}{}

// set adds the keys of c to the newest layer, in order, except those a
// layer holds: for a set that adds only keys no layer holds (!always),
// out says which those are (test over every layer, the newest included);
// with always, the newest layer is tested here and out keeps the older
// layers' answers. out[i] becomes true for a key that set no clear bit
// (with report: that this call did not claim, claim.go). It returns how
// many keys set a clear bit (claimed). Only the keys the newest
// layer lacks get their probe masks built and ORed in.
func (p *fusedPipe) set(c *fusedPiece, out []bool, always, report bool) (added int) {
	newest := len(p.layers) - 1
	f, first := p.layers[newest], &c.first[newest]
	held := out[:c.n]
	if always {
		held = p.hit[:c.n]
		kernel.Active.TestBlocks(f.words, first[:c.n], c.gs[:c.n], f.hdr.K, held)
	}
	var idx [kernel.ChunkKeys]int
	var gs [kernel.ChunkKeys]uint32
	n := 0
	for i, h := range held {
		if h {
			out[i] = true
			continue
		}
		idx[n], gs[n] = i, c.gs[i]
		n++
	}
	kernel.Active.BlockMasks(gs[:n], f.hdr.K, c.masks[:n])
	for j, i := range idx[:n] {
		if f.orLine(first[i]/hashing.BlockBits, &c.masks[j], report) {
			added++
		} else {
			out[i] = true
		}
	}
	return added
}

// testFused is the fused TestBatch over the live layers (oldest first):
// present[i] is set when any layer holds keys[i].
func testFused(layers []*Filter, seed uint64, keys [][]byte, hashes keyHashes, present []bool) error {
	return guardLayers(layers, false, func() error {
		p := startFused(layers, seed, keys, hashes)
		defer p.put()
		for c := p.piece(); c != nil; c = p.piece() {
			p.test(c, 0, len(layers), present[c.start:c.start+c.n])
		}
		return nil
	})
}

// insertFused is insertKeys on the fused pipeline: layers are the older
// live layers then the newest (oldest first), always as addsAlways, add
// true for AddBatch. It returns how many keys set a clear bit of the
// newest layer.
func insertFused(layers []*Filter, seed uint64, keys [][]byte, hashes keyHashes, present []bool, always, add bool) (added int, err error) {
	clear(present) // set leaves false, unwritten, a key that set a clear bit
	err = guardLayers(layers, true, func() error {
		p := startFused(layers, seed, keys, hashes)
		defer p.put()
		newest := len(layers) - 1
		for c := p.piece(); c != nil; c = p.piece() {
			out := present[c.start : c.start+c.n]
			switch {
			case !always:
				p.test(c, 0, len(layers), out)
			case !add:
				p.test(c, 0, newest, out)
			}
			added += p.set(c, out, always, !add)
		}
		layers[newest].addCount(uint64(added))
		return nil
	})
	return added, err
}
