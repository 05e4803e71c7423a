package bench

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/edsrzf/mmap-go"
	"golang.org/x/sys/unix"
)

// BenchmarkMemoryLatency measures the machine, not a library: random
// 64-byte line reads in a 128 MiB file mapped as the library maps a filter
// (shared, MADV_HUGEPAGE). dependent: each read's
// address comes from the one before (a pointer chase), so one read is in
// flight at a time: the floor of a single-key probe whose miss the CPU
// cannot overlap with the next call's. independent: addresses from a
// random generator, so the CPU overlaps as many misses as it can. ns/op is
// per read.
func BenchmarkMemoryLatency(b *testing.B) {
	words := mappedWordsAdvised(b, filepath.Join(fileDir(b), "memlat.bin"), 128<<20, true)
	chain(words)
	b.Run("reads=dependent", func(b *testing.B) { benchDependent(b, words) })
	b.Run("reads=independent", func(b *testing.B) { benchIndependent(b, words) })
}

// chain links every line of words into one random cycle: the first word
// of each line holds the index of the next line's first word.
func chain(words []uint64) {
	lines := len(words) / 8
	order := rand.Perm(lines)
	for i, line := range order {
		words[line*8] = uint64(order[(i+1)%lines] * 8)
	}
}

// benchDependent chases pointers through words linked by chain: each
// read's line comes from the one before.
func benchDependent(b *testing.B, words []uint64) {
	p := uint64(0)
	for b.Loop() {
		p = words[p]
	}
	sinkWord = p
}

// benchIndependent reads lines of words at addresses from a random
// generator, none depending on a read.
func benchIndependent(b *testing.B, words []uint64) {
	lines := uint64(len(words) / 8)
	s, x := uint64(1), uint64(0)
	for b.Loop() {
		s = s*6364136223846793005 + 1442695040888963407
		x += words[(s>>20)%lines*8]
	}
	sinkWord = x
}

var sinkWord uint64

// mappedWordsAdvised maps a new file at path of size bytes (rounded down
// to whole lines), with MADV_RANDOM as the
// library maps a filter and, with huge, MADV_HUGEPAGE as OpenOptions.HugePages
// adds, and views it as 64-bit words.
func mappedWordsAdvised(b *testing.B, path string, size int, huge bool) []uint64 {
	size &^= 63
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close(); _ = os.Remove(path) })
	if err := f.Truncate(int64(size)); err != nil {
		b.Fatal(err)
	}
	m, err := mmap.MapRegion(f, size, mmap.RDWR, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Unmap() })
	if huge {
		_ = unix.Madvise(m, unix.MADV_HUGEPAGE) // advice, as in the library
	}
	_ = unix.Madvise(m, unix.MADV_RANDOM)
	return unsafe.Slice((*uint64)(unsafe.Pointer(&m[0])), size/8)
}
