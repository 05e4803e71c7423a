//go:build !linux

package mapping

// Available reports that the available memory is unknown here (it is
// read from Linux's /proc/meminfo).
func Available() (n uint64, ok bool) { return 0, false }
