// This file is the only one in package mmapbloom that imports unsafe: it
// views the mapped bytes as 64-bit words for sync/atomic, and gives the
// set kernels (kernel_layers_amd64.s) the addresses of mappings.

package mmapbloom

import (
	"fmt"
	"unsafe"
)

// wordsOf views b as little-endian-on-disk 64-bit words. b must be 8-byte
// aligned (a page-aligned mapping plus the 64-byte header is) and a
// multiple of 8 bytes long; anything else is an internal error.
func wordsOf(b []byte) ([]uint64, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%8 != 0 || len(b)%8 != 0 {
		return nil, fmt.Errorf("mmapbloom: mapping at %p, %d bytes, is not 8-byte aligned", &b[0], len(b))
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8), nil
}

// uint32At returns a pointer to the 4 bytes at b[off:], for atomic access
// to a 32-bit header field; off must be a multiple of 4 in a mapping.
func uint32At(b []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&b[off]))
}

// bytesOf views s as a byte slice without copying; callers only read it.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// addrOf returns the address of the first word of w (0 for an empty w),
// for assembly that walks several mappings at once; the mapped memory is
// not the Go heap's, so the uintptr keeps nothing alive and nothing moves.
func addrOf(w []uint64) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(w)))
}

// The set kernels' assembly reads fusedLayer records of 96 bytes: a
// compile error here means it needs the new size.
var _ [0]struct{} = [unsafe.Sizeof(fusedLayer{}) - 96]struct{}{}
