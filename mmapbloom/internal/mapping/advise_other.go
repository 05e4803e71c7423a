//go:build !linux

package mapping

// adviseHugePages does nothing where there is no MADV_HUGEPAGE.
func adviseHugePages([]byte) {}
