//go:build linux

package diskfull

import (
	"testing"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestHelperProcess is not a test: it is the entry point of the helper
// processes the disk-full tests start (testkit.StartHelper), and skips
// when run directly.
func TestHelperProcess(t *testing.T) { testkit.RunHelper(t) }
