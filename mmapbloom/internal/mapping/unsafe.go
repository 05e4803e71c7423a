// This file is the only one of the library that uses unsafe for more than
// a size (internal/kernel/layer.go takes one): it views the mapped bytes
// as 64-bit words for sync/atomic, and gives the set kernels
// (kernel.TestLayers) the addresses of mappings.

package mapping

import (
	"fmt"
	"unsafe"
)

// Words views b as little-endian-on-disk 64-bit words. b must be 8-byte
// aligned (a page-aligned mapping plus the 64-byte header is) and a
// multiple of 8 bytes long; anything else is an internal error.
func Words(b []byte) ([]uint64, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%8 != 0 || len(b)%8 != 0 {
		return nil, fmt.Errorf("mmapbloom: mapping at %p, %d bytes, is not 8-byte aligned", &b[0], len(b))
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8), nil
}

// Uint32At returns a pointer to the 4 bytes at b[off:], for atomic access
// to a 32-bit header field; off must be a multiple of 4 in a mapping.
func Uint32At(b []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&b[off]))
}

// Bytes views s as a byte slice without copying; callers only read it.
func Bytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Addr returns the address of the first word of w (0 for an empty w),
// for assembly that walks several mappings at once; the mapped memory is
// not the Go heap's, so the uintptr keeps nothing alive and nothing moves.
func Addr(w []uint64) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(w)))
}
