package mapping

// This file holds the one system call of the library that takes a
// pointer into a mapping (mincore; golang.org/x/sys/unix has no wrapper).

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentSamples is how many pages, spread evenly over a mapping,
// Resident asks about.
const residentSamples = 32

// residentBatch is how many pages' residency ResidentBytes asks for per
// system call (16 MiB of 4 KiB pages).
const residentBatch = 4096

// mincore fills vec, one byte per page of b, with the residency of b's
// pages (bit 0 set: in memory), reading none of them. b starts at a
// page boundary and is not empty.
func mincore(b, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}

// Resident reports whether every one of residentSamples pages spread
// evenly over m (each page when it has fewer, a part page counting as
// one) is in memory (mincore), so that the file behind m is
// most likely resident in the page cache. False on any error.
func Resident(m []byte) bool {
	page := unix.Getpagesize()
	pages := (len(m) + page - 1) / page
	samples := min(pages, residentSamples)
	var vec [1]byte
	for i := range samples {
		off := (i * pages / samples) * page
		if mincore(m[off:min(off+page, len(m))], vec[:]) != nil || vec[0]&1 == 0 {
			return false
		}
	}
	return samples > 0
}

// ResidentBytes returns how many bytes of the mapping m are in memory
// (for a file, in the page cache), by mincore over the whole of it,
// reading no page: a resident page counts page-size bytes, the last
// one only the bytes of m it holds. m starts at a page boundary (a
// whole mapping). Errors: mincore's (ENOMEM for a range not mapped),
// wrapped.
func ResidentBytes(m []byte) (uint64, error) {
	page := unix.Getpagesize()
	var vec [residentBatch]byte
	var n uint64
	for off := 0; off < len(m); off += residentBatch * page {
		size := min(residentBatch*page, len(m)-off)
		pages := (size + page - 1) / page
		if err := mincore(m[off:off+size], vec[:pages]); err != nil {
			return 0, fmt.Errorf("mmapbloom: mincore of %d bytes mapped: %w", len(m), err)
		}
		for i, v := range vec[:pages] {
			if v&1 != 0 {
				n += uint64(min(page, size-i*page))
			}
		}
	}
	return n, nil
}
