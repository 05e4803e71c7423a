//go:build !linux

package mmapbloom

import "os"

// reserve sizes f to size bytes. Off Linux there is no portable fallocate,
// so the file is sparse and a full disk shows up on later writes.
func reserve(f *os.File, size int64) error { return f.Truncate(size) }
