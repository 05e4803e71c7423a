//go:build !linux

package mmapbloom

// adviseHugePages does nothing where there is no MADV_HUGEPAGE.
func adviseHugePages([]byte) {}
