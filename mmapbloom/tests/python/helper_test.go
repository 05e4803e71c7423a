//go:build linux

package python

import (
	"flag"
	"testing"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

// update rewrites the golden files of ../../../testdata/py
// (TestPythonGolden).
var update = flag.Bool("update", false, "rewrite the golden files of testdata/py")

// TestHelperProcess is not a test: it is the entry point of the Go
// helper processes that run beside Python ones (testkit.StartHelper), and
// skips when run directly.
func TestHelperProcess(t *testing.T) { testkit.RunHelper(t) }

// layerOptions is testhooks.LayerOptions with the library's type: the
// CreateOptions a set of manifest m creates a layer of rate p with.
func layerOptions(m *manifest.Manifest, p float64) *mmapbloom.CreateOptions {
	return testhooks.LayerOptions(m, p).(*mmapbloom.CreateOptions)
}
