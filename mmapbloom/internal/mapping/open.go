package mapping

import (
	"os"

	"golang.org/x/sys/unix"
)

// OpenFile is os.OpenFile with O_NONBLOCK added, for every file the
// library opens by a caller's path: a FIFO (or another special file
// whose open waits for a peer) then opens at once, and the caller's
// check that it is a regular file refuses it, where a plain open for
// reading would wait for a writer for ever. O_NONBLOCK changes nothing
// for a regular file. Errors: the os error.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|unix.O_NONBLOCK, perm)
}
