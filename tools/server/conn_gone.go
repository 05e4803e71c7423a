package server

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// A long batch call (a BF.MADD of many keys into a set that keeps
// growing) runs in steps, and stops between two steps once its client
// has closed the connection: nobody is left to read the answer.

// addWork bounds the layer probes of one step: a step takes
// addWork / layers keys (at least 1, at most maxStep), since a key costs
// a probe of each layer, so that a set of many layers is checked often.
const (
	addWork = 4096
	maxStep = 1024
)

// errClientGone stops a batch whose client closed its connection.
var errClientGone = errors.New("the client closed the connection")

// addBatch is b.TestAndAddBatch(items, present) in steps of
// addWork / layers keys, stopping with errClientGone when c's client has
// left.
func (c *client) addBatch(b Bloom, items [][]byte, present []bool) error {
	for i := 0; i < len(items); {
		if i > 0 && c.gone() {
			return errClientGone
		}
		end := min(i+max(1, min(maxStep, addWork/max(1, b.Layers()))), len(items))
		if err := b.TestAndAddBatch(items[i:end], present[i:end]); err != nil {
			return err
		}
		i = end
	}
	return nil
}

// gone reports whether c's client closed its side of the connection: a
// non-blocking MSG_PEEK read sees the end of the stream or an error. A
// client that sent more before closing is seen gone only once those
// bytes are read.
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
