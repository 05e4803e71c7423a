package layouts

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// TestName: the subtest names of All, which the tests' names (and the
// CI patterns that select them) are made of.
func TestName(t *testing.T) {
	var names []string
	for _, l := range All {
		names = append(names, l.Name())
	}
	require.Equal(t, []string{"default", "classic", "murmur2-seeds", "v1.1"}, names)
	require.Equal(t, "v2-blocked512-xxh3-blocked", Layout{Format: format.V2, Layout: format.LayoutBlocked512, Scheme: format.SchemeXXH3Blocked}.Name())
}
