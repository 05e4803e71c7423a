package testhooks

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCrash: without a hook Crash does nothing; with one it passes the
// point on; SetCrash(nil) removes it.
func TestCrash(t *testing.T) {
	Crash("layer-created")
	var got []string
	SetCrash(func(point string) { got = append(got, point) })
	Crash("layer-created")
	Crash("manifest-renamed")
	require.Equal(t, []string{"layer-created", "manifest-renamed"}, got)
	SetCrash(nil)
	Crash("layer-created")
	require.Len(t, got, 2)
}
