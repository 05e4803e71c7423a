package bench

import (
	"encoding/binary"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/bench/internal/peers"
	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// BenchmarkAddFloor puts batch Add beside its floor, measured in the same
// process on the same keys: BENCH_N (default 10M) URL-like keys never
// added before, into a blocked filter for n keys at p = 1e-4, empty
// (fill=empty) or already holding n other keys (fill=full). The parts of
// the floor, per key:
//
//   - op=read: the independent read, one word of each key's cache line
//     (its block, from Locations) read in key order from a shared mapping
//     of the filter's size with huge pages advised: the batch pipeline's
//     probe without its work.
//   - op=ors-locked: the atomic ORs the key needs, one per word of its
//     block that lacks a bit of its mask (counted on a copy of the
//     filter's bits as the keys are added in order: words already holding
//     their bits are skipped; the add kernels OR all 8 words of a block
//     that lacks any, which costs less than a branch per word), made on a
//     ring of 64 lines that stays in L1; op=ors-plain, the same ORs
//     without the lock prefix.
//   - op=hash: the key's xxh3 under the filter's seed.
//
// op=add is AddBatch on the filter (shared mapping, atomic ORs), in calls
// of peers.BatchSize keys; op=add-builder the same on a Builder
// (BuildPrivate), op=add-single on a Builder with
// BuildOptions.SingleWriter (plain ORs). The last sub-benchmark,
// op=ratios, reports add/floor, batch Add over read + ors-locked + hash,
// builder/floor the same for add-builder, and single/read, add-single
// over the read, from each sub-benchmark's thread CPU time (-cpu units)
// and from its wall time; words/key is the locked ORs a key needed. An iteration is a key; run
// it with -benchtime=Nx, N at most BENCH_N (each run of fill=empty adds to
// a new filter, so N = BENCH_N fills it from empty to n): addfloor.sh
// runs it so.
func BenchmarkAddFloor(b *testing.B) {
	n, err := keys.EnvN("BENCH_N")
	if err != nil {
		b.Fatal(err)
	}
	fresh := keys.Generate(keys.Absent, 0, uint64(n)).Keys()
	for _, fill := range []string{"empty", "full"} {
		b.Run("fill="+fill+"/n="+keys.FormatN(n), func(b *testing.B) {
			fl := newFloorCase(b, n, fill == "full", fresh)
			fl.run(b)
		})
	}
}

// floorCase is one filter state of BenchmarkAddFloor with the keys'
// precomputed floor inputs and the figures measured so far.
type floorCase struct {
	n     int
	dir   string
	keys  [][]byte
	seed  uint64
	lines []uint32 // block of each key
	lacks []uint8  // bit w: word w of the key's block lacks a bit when the key is added
	words float64  // mean locked ORs per key
	ref   []uint64 // the read's mapping, the filter's size
	cpu   map[string]float64
	wall  map[string]float64
	full  map[string]adder // fill=full: per add op, the filter holding n keys that each run adds to
}

// adder is a filter or a Builder, as the add ops add to it.
type adder interface{ AddBatch(keys [][]byte) error }

// addOps are the add sub-benchmarks, each adding to its own adder.
var addOps = []string{"add", "add-builder", "add-single"}

// newFloorCase builds the filter of the case (holding n present keys when
// full) once, to learn its shape and bits, and computes every key's block
// and the words it lacks as keys are added in order.
func newFloorCase(b *testing.B, n int, full bool, keys [][]byte) *floorCase {
	fl := &floorCase{n: n, dir: fileDir(b), keys: keys, cpu: map[string]float64{}, wall: map[string]float64{}}
	f := fl.create(b, "floor.bloom")
	hdr := f.Header()
	fl.seed = hdr.Seed
	words := make([]uint64, hdr.M/64)
	if full {
		fl.full = map[string]adder{"add": f}
		for _, op := range addOps[1:] {
			fl.full[op] = fl.newAdder(b, op)
		}
		for _, a := range fl.full {
			fillFilter(b, a, n)
		}
		copyBits(b, f, words)
	} else if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	fl.lines, fl.lacks = make([]uint32, len(keys)), make([]uint8, len(keys))
	total := 0
	for i, key := range keys {
		var mask [8]uint64
		locs := f.Locations(key)
		block := locs[0] / 512
		for _, p := range locs {
			mask[p%512/64] |= 1 << (p % 64)
		}
		fl.lines[i] = uint32(block)
		for w, m := range mask {
			if word := &words[block*8+uint64(w)]; *word&m != m {
				*word |= m
				fl.lacks[i] |= 1 << w
				total++
			}
		}
	}
	fl.words = float64(total) / float64(len(keys))
	fl.ref = mappedWordsAdvised(b, filepath.Join(fl.dir, "floor-ref.bin"), int(hdr.ByteSize), true)
	for i := 0; i < len(fl.ref); i += 512 { // every page in memory before the reads
		fl.ref[i] = uint64(i)
	}
	return fl
}

// create creates a new filter at name in the case's directory, shaped as
// BenchmarkAddFloor says.
func (fl *floorCase) create(b *testing.B, name string) *mmapbloom.Filter {
	path := filepath.Join(fl.dir, name)
	opts := &mmapbloom.CreateOptions{Layout: format.LayoutBlocked512, Seed: peers.Seed, FixedSeed: true, Overwrite: true}
	f, err := mmapbloom.Create(path, uint64(fl.n), benchP, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close(); _ = os.Remove(path) })
	return f
}

// newAdder returns a new, empty adder for the add op op: a filter or a
// Builder, shaped as create shapes a filter.
func (fl *floorCase) newAdder(b *testing.B, op string) adder {
	if op == "add" {
		return fl.create(b, "floor-add.bloom")
	}
	opts := &mmapbloom.BuildOptions{
		CreateOptions: mmapbloom.CreateOptions{Layout: format.LayoutBlocked512, Seed: peers.Seed, FixedSeed: true, Overwrite: true},
		Mode:          mmapbloom.BuildPrivate,
		SingleWriter:  op == "add-single",
	}
	bld, err := mmapbloom.NewBuilder(filepath.Join(fl.dir, "floor-"+op+".bloom"), uint64(fl.n), benchP, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bld.Abort() })
	return bld
}

// fillFilter adds the n present keys to f, a million at a time.
func fillFilter(b *testing.B, f adder, n int) {
	const chunk = 1 << 20
	for from := uint64(0); from < uint64(n); from += chunk {
		if err := f.AddBatch(keys.Generate(keys.Present, from, min(from+chunk, uint64(n))).Keys()); err != nil {
			b.Fatal(err)
		}
	}
}

// copyBits reads f's bit array into words, after Sync wrote it to its file.
func copyBits(b *testing.B, f *mmapbloom.Filter, words []uint64) {
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(f.Path())
	if err != nil {
		b.Fatal(err)
	}
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(data[format.HeaderSize+8*i:])
	}
}

// run runs the sub-benchmarks of the case, then reports the ratios.
func (fl *floorCase) run(b *testing.B) {
	runtime.GC() // not during the timed loops
	fl.measure(b, "read", fl.read)
	fl.measure(b, "ors-locked", func(b *testing.B) { fl.ors(b, true) })
	fl.measure(b, "ors-plain", func(b *testing.B) { fl.ors(b, false) })
	fl.measure(b, "hash", fl.hash)
	for _, op := range addOps {
		fl.measure(b, op, func(b *testing.B) { fl.add(b, fl.target(b, op).AddBatch) })
	}
	b.Run("op=ratios", func(b *testing.B) {
		for b.Loop() {
		}
		for _, m := range []struct {
			suffix string
			by     map[string]float64
		}{{"-cpu", fl.cpu}, {"", fl.wall}} {
			floor := m.by["read"] + m.by["ors-locked"] + m.by["hash"]
			b.ReportMetric(m.by["add"]/floor, "add/floor"+m.suffix)
			b.ReportMetric(m.by["add-builder"]/floor, "builder/floor"+m.suffix)
			b.ReportMetric(m.by["add-single"]/m.by["read"], "single/read"+m.suffix)
		}
		b.ReportMetric(fl.words, "words/key")
		b.ReportMetric(0, "ns/op")
	})
}

// measure runs bench as the sub-benchmark op=name and records its wall
// and thread CPU time per key (the last run's: the one of -benchtime).
func (fl *floorCase) measure(b *testing.B, name string, bench func(b *testing.B)) {
	b.Run("op="+name, func(b *testing.B) {
		if b.N > len(fl.keys) {
			b.Fatalf("%d keys asked, BENCH_N is %d: run with -benchtime=Nx, N <= BENCH_N", b.N, len(fl.keys))
		}
		cpu := startThreadCPU()
		bench(b)
		fl.cpu[name] = float64(threadNanos()-cpu.start) / float64(b.N)
		fl.wall[name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		cpu.report(b)
	})
}

// target returns the adder a run of the add op op adds to: for
// fill=empty a new one, made before the timer starts.
func (fl *floorCase) target(b *testing.B, op string) adder {
	if fl.full != nil {
		return fl.full[op]
	}
	b.StopTimer()
	defer b.StartTimer()
	return fl.newAdder(b, op)
}

// read reads one word of each key's line from the reference mapping.
func (fl *floorCase) read(b *testing.B) {
	var x uint64
	for i := range b.N {
		x += fl.ref[uint64(fl.lines[i])*8]
	}
	sinkWord = x
}

// ors makes each key's ORs, locked or plain, on a ring of 64 lines.
func (fl *floorCase) ors(b *testing.B, locked bool) {
	var ring [64 * 8]uint64
	for i := range b.N {
		line := ring[i%64*8 : i%64*8+8 : i%64*8+8]
		bit := uint64(1) << (i % 64)
		for lack := fl.lacks[i]; lack != 0; lack &= lack - 1 {
			w := bits.TrailingZeros8(lack)
			if locked {
				atomic.OrUint64(&line[w], bit)
			} else {
				line[w] |= bit
			}
		}
	}
	sinkWord = ring[0]
}

// hash hashes each key as the filter does.
func (fl *floorCase) hash(b *testing.B) {
	var x uint64
	for i := range b.N {
		x += xxh3.HashSeed(fl.keys[i], fl.seed)
	}
	sinkWord = x
}

// add adds the first b.N keys with addBatch, peers.BatchSize at a time.
func (fl *floorCase) add(b *testing.B, addBatch func(keys [][]byte) error) {
	for from := 0; from < b.N; from += peers.BatchSize {
		if err := addBatch(fl.keys[from:min(from+peers.BatchSize, b.N)]); err != nil {
			b.Fatal(err)
		}
	}
}
