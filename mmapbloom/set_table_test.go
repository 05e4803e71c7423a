package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// The sizing table of sets in docs/sets.md, computed from the sizing code that
// CreateSet and Create use (set_sizing.go, OptimalBlocked, OptimalClassic)
// and kept in testdata/set-sizing.md; -update rewrites it. The measured
// rates are in the FPR tests' logs (set_fpr_test.go).

// layerShape returns the m and k Create picks for n keys at p by default.
func layerShape(n uint64, p float64) (uint64, uint32, bool) {
	o, sizeFor := withDefaults(nil, n, p)
	m, k, err := o.size(n, sizeFor)
	if err != nil {
		panic(err)
	}
	return m, k, o.Layout == format.LayoutBlocked512
}

// layerFPR returns the expected false-positive rate of a layer of shape
// (m, k) holding x keys.
func layerFPR(m uint64, k uint32, blocked bool, x uint64) float64 {
	if blocked {
		mean, _ := sizing.BlockedFPR(float64(x)/float64(m/hashing.BlockBits), k)
		return mean
	}
	return FalsePositiveRate(m, k, x)
}

// scalableRow sizes a scalable set holding keys keys: layers filled in
// order to their capacity.
func scalableRow(n0 uint64, p float64, s uint32, r float64, keys uint64) (layers int, bits uint64, fpr float64) {
	none := 1.0
	for left := keys; left > 0; layers++ {
		n, pi, err := sizing.ScalableLayer(n0, p, s, r, layers)
		if err != nil {
			panic(err)
		}
		m, k, blocked := layerShape(n, pi)
		x := min(n, left)
		left -= x
		bits += m
		none *= 1 - layerFPR(m, k, blocked, x)
	}
	return layers, bits, 1 - none
}

func setSizingTable() string {
	var b strings.Builder
	const n0, p = 1_000_000, 0.01
	b.WriteString("Scalable sets, n0 = 1M keys, p = 0.01 (blocked layers; p_i = p(1-r)r^i):\n\n")
	b.WriteString("| expansion s, tightening r | keys | layers | MiB | bits per key | expected FPR | one filter sized for the keys: bits per key |\n|---|---|---|---|---|---|---|\n")
	for _, sr := range []struct {
		s uint32
		r float64
	}{{2, 0.5}, {4, 0.9}} {
		for _, x := range []uint64{1, 10, 100} {
			keys := x * n0
			layers, bits, fpr := scalableRow(n0, p, sr.s, sr.r, keys)
			m, _, _ := layerShape(keys, p)
			fmt.Fprintf(&b, "| %d, %g | %dx n0 = %dM | %d | %.1f | %.2f | %.5f | %.2f |\n",
				sr.s, sr.r, x, keys/1_000_000, layers, float64(bits)/8/(1<<20), float64(bits)/float64(keys), fpr, float64(m)/float64(keys))
		}
	}
	b.WriteString("\nWindowed sets, 5M new URLs a day, p = 0.001, each window's layer sized at p/W:\n\n")
	b.WriteString("| windows | a key is remembered | layer p | bits per key | GiB on disk | expected FPR (all W layers full) |\n|---|---|---|---|---|---|\n")
	const perDay = 5_000_000
	for _, w := range []struct {
		keep int
		d    time.Duration
	}{{31, 24 * time.Hour}, {4, 10 * 24 * time.Hour}, {4, 180 * time.Hour}} {
		days := w.d.Hours() / 24
		n := uint64(perDay * days)
		n, pl := sizing.WindowLayer(n, 0.001, w.keep)
		m, k, blocked := layerShape(n, pl)
		f := layerFPR(m, k, blocked, n)
		none := 1.0
		for range w.keep {
			none *= 1 - f
		}
		fmt.Fprintf(&b, "| W = %d of D = %g days | %g to %g days | %.2e | %.2f | %.2f | %.5f |\n",
			w.keep, days, float64(w.keep-1)*days, float64(w.keep)*days, pl, float64(m)/float64(n),
			float64(m)*float64(w.keep)/8/(1<<30), 1-none)
	}
	return b.String()
}

func TestSetSizingTable(t *testing.T) {
	got := setSizingTable()
	path := filepath.Join(testkit.RepoRoot(), "testdata", "set-sizing.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got, "sizing changed: rerun with go test ./mmapbloom -run TestSetSizingTable -update and update the table in docs/sets.md")
}
