//go:build !linux

package mapping

import (
	"errors"
	"fmt"
)

// Resident reports false where there is no mincore to ask.
func Resident([]byte) bool { return false }

// ResidentBytes fails with errors.ErrUnsupported where there is no
// mincore to ask (it is asked on Linux only).
func ResidentBytes([]byte) (uint64, error) {
	return 0, fmt.Errorf("mmapbloom: page residency: %w", errors.ErrUnsupported)
}
