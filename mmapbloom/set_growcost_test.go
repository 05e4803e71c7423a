//go:build linux

package mmapbloom

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// growthCost is what one growth of a set cost this process.
type growthCost struct {
	files, fds, maps int   // set directory entries, open descriptors, mappings added
	written          int64 // bytes written (/proc/self/io wchar)
}

// procCounts returns the open descriptors, mappings and bytes written of
// this process, and the entries of dir.
func procCounts(t *testing.T, dir string) growthCost {
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	maps, err := os.ReadFile("/proc/self/maps")
	require.NoError(t, err)
	io, err := os.ReadFile("/proc/self/io")
	require.NoError(t, err)
	var wchar int64
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			wchar, err = strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
		}
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	return growthCost{files: len(ents), fds: len(fds), maps: bytes.Count(maps, []byte("\n")), written: wchar}
}

// TestSetGrowthCost: the cost of one growth of a scalable set does not
// depend on the layers it has: one file created, one opened and mapped,
// at its 2nd layer as at its 60th; the bytes written are the MANIFEST
// (one line per layer) and the new layer's header.
func TestSetGrowthCost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.bfset")
	s, err := CreateSet(dir, 64, 0.01, &SetOptions{Expansion: 1})
	require.NoError(t, err)
	defer s.Close()
	costs := map[int]growthCost{}
	for i := 0; s.Layers() < 60; i++ {
		layers, before := s.Layers(), procCounts(t, dir)
		require.NoError(t, s.Add([]byte(fmt.Sprint(i))))
		if s.Layers() == layers {
			continue
		}
		after := procCounts(t, dir)
		costs[s.Layers()] = growthCost{after.files - before.files, after.fds - before.fds, after.maps - before.maps, after.written - before.written}
	}
	for _, layers := range []int{2, 30, 60} {
		c := costs[layers]
		t.Logf("growth to %d layers: %d file created, %d opened, %d mapped, %d bytes written", layers, c.files, c.fds, c.maps, c.written)
		assert.Equal(t, growthCost{1, 1, 1, c.written}, c, "growth to %d layers", layers)
	}
}
