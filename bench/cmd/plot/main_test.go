package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

// sampleRaw makes raw benchmark lines at three sizes for two libraries.
func sampleRaw() string {
	var b bytes.Buffer
	for i, n := range []string{"1M", "10M", "3M"} {
		bytes := []float64{2e6, 2e7, 6e6}[i]
		for _, op := range []string{"add", "test-present"} {
			fmt.Fprintf(&b, "BenchmarkPeers/lib=blobloom/n=%s/op=%s-2 100 %g ns/op %g filter-bytes\n", n, op, 50+10*float64(i), bytes)
			fmt.Fprintf(&b, "BenchmarkPeers/lib=mmapbloom-blocked/n=%s/op=%s-2 100 %g ns/op %g filter-bytes\n", n, op, 40+10*float64(i), bytes)
			fmt.Fprintf(&b, "BenchmarkPeers/lib=mmapbloom-blocked/n=%s/op=batch-%s-2 100 9999 ns/op %g filter-bytes %g ns/key\n", n, op, bytes, 20+float64(i))
		}
	}
	return b.String()
}

func TestCollect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.bench")
	require.NoError(t, os.WriteFile(path, []byte(sampleRaw()), 0o644))
	rs, err := result.ReadFiles([]string{path})
	require.NoError(t, err)
	p := collect(rs, panelOps[0])
	require.Len(t, p.lines, 3)
	assert.Equal(t, "blobloom", p.lines[0].name)
	assert.Equal(t, "mmapbloom-blocked batch", p.lines[2].name)
	assert.Equal(t, []point{{2e6, 20}, {6e6, 22}, {2e7, 21}}, p.lines[2].points, "sorted by bytes, ns/key for batches")
}

// TestRun writes a PNG and checks its signature.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "raw.bench")
	require.NoError(t, os.WriteFile(in, []byte(sampleRaw()), 0o644))
	out := filepath.Join(dir, "p.png")
	require.NoError(t, run([]string{"-o", out, in}))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, []byte("\x89PNG"), b[:4])

	empty := filepath.Join(dir, "empty.bench")
	require.NoError(t, os.WriteFile(empty, []byte("PASS\n"), 0o644))
	assert.Error(t, run([]string{"-o", out, empty}))
}

func TestByteTicks(t *testing.T) {
	var labels []string
	for _, tk := range (byteTicks{}).Ticks(2.6e6, 1.5e8) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"4 MiB", "8 MiB", "16 MiB", "32 MiB", "64 MiB", "128 MiB"}, labels)
	wide := (byteTicks{}).Ticks(2000, 2e9)
	assert.Equal(t, "4 KiB", wide[0].Label)
	assert.Equal(t, "1 GiB", wide[len(wide)-1].Label)
}

func TestNsTicks(t *testing.T) {
	for _, tk := range (nsTicks{}).Ticks(0, 750) {
		assert.NotContains(t, tk.Label, ".00")
	}
}
