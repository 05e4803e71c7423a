package mapping

import "golang.org/x/sys/unix"

// adviseHugePages asks for transparent huge pages on a mapping (see
// Map). It is advice: a kernel without THP refuses it, harmlessly.
func adviseHugePages(m []byte) { _ = unix.Madvise(m, unix.MADV_HUGEPAGE) }
