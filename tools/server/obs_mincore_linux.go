package server

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mincore fills vec with the residency of b's pages (bit 0 set: in
// memory), the mincore(2) system call, which golang.org/x/sys/unix does
// not wrap on Linux. b must be a whole mapping of at least one page and
// vec hold one byte per page of it.
func mincore(b, vec []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return errno
	}
	return nil
}
