//go:build amd64 && gc && !purego

package mapping

// touch writes the word at p without changing it (an atomic OR of 0), so
// that the kernel allocates its page of a file mapping (see allocate). In
// assembly, so that the race detector does not instrument it: the
// detector's atomics run on the system stack, where the fault of a page
// that cannot be allocated would kill the process instead of becoming
// errs.ErrNoSpace.
//
//go:noescape
func touch(p *uint64)
