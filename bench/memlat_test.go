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
	const size = 128 << 20
	words := mappedWords(b, size)
	lines := size / 64
	order := rand.Perm(lines)
	for i, line := range order {
		words[line*8] = uint64(order[(i+1)%lines] * 8)
	}
	b.Run("reads=dependent", func(b *testing.B) {
		p := uint64(0)
		for b.Loop() {
			p = words[p]
		}
		sinkWord = p
	})
	b.Run("reads=independent", func(b *testing.B) {
		s, x := uint64(1), uint64(0)
		for b.Loop() {
			s = s*6364136223846793005 + 1442695040888963407
			x += words[(s>>20)%uint64(lines)*8]
		}
		sinkWord = x
	})
}

var sinkWord uint64

// mappedWords maps a new file of size bytes in the benchmark's directory
// and views it as 64-bit words.
func mappedWords(b *testing.B, size int) []uint64 {
	path := filepath.Join(fileDir(b), "memlat.bin")
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
	_ = unix.Madvise(m, unix.MADV_HUGEPAGE) // advice, as in the library

	return unsafe.Slice((*uint64)(unsafe.Pointer(&m[0])), size/8)
}
