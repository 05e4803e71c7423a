//go:build !linux

package files

import "errors"

// Drop is Linux-only (posix_fadvise DONTNEED).
func Drop(string) error { return errors.New("dropping a file from the page cache needs Linux") }
