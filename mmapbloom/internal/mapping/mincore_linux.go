package mapping

// This file holds the one system call of the library that takes a
// pointer into a mapping (mincore; golang.org/x/sys/unix has no wrapper).

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentSamples is how many pages, spread evenly over a mapping,
// Resident asks about.
const residentSamples = 32

// Resident reports whether every one of residentSamples pages spread
// evenly over m is in memory (mincore), so that the file behind m is
// most likely resident in the page cache. False on any error.
func Resident(m []byte) bool {
	page := unix.Getpagesize()
	pages := len(m) / page
	if pages == 0 {
		return false
	}
	var vec byte
	for i := range residentSamples {
		off := (i * pages / residentSamples) * page
		_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[off])), uintptr(page), uintptr(unsafe.Pointer(&vec)))
		if e != 0 || vec&1 == 0 {
			return false
		}
	}
	return true
}
