package server

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// gone reports whether c's client closed its side of the connection: a
// non-blocking MSG_PEEK read sees the end of the stream or an error. A
// client that sent more before closing is seen gone only once those
// bytes are read. A long batch (addBatch, bf_batch.go) stops so when
// nobody is left to read its answer.
func (c *client) gone() bool {
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	_ = raw.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		closed = (n == 0 && err == nil) || (err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR))
		return true // never wait for readability
	})
	return closed
}
