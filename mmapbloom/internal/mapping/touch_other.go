//go:build !amd64 || !gc || purego

package mapping

import "sync/atomic"

// touch writes the word at p without changing it (an atomic OR of 0), so
// that the kernel allocates its page of a file mapping (see allocate).
// Under the race detector a page that cannot be allocated kills the
// process here (amd64 has an uninstrumented version).
func touch(p *uint64) { atomic.OrUint64(p, 0) }
