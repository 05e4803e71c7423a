package mmapbloom

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// TestOptimalBlockedNearOptimum checks blocked sizing against the bits per
// key that a 512-bit blocked filter with the best k needs (the issue's
// table, from the Poisson model of keys per block): within 3% at large n.
func TestOptimalBlockedNearOptimum(t *testing.T) {
	for _, tc := range []struct {
		p, bitsPerKey float64
		k             uint32
	}{
		{1e-2, 9.93, 6},
		{1e-3, 15.49, 9},
		{1e-4, 21.93, 12},
		{1e-6, 38.59, 16},
	} {
		t.Run(fmt.Sprintf("p=%g", tc.p), func(t *testing.T) {
			n := uint64(50_000_000)
			m, k, err := OptimalBlocked(n, tc.p)
			require.NoError(t, err)
			require.Zero(t, m%hashing.BlockBits)
			got := float64(m) / float64(n)
			t.Logf("p=%g: %.3f bits/key (optimum %.2f, +%.1f%%), k=%d", tc.p, got, tc.bitsPerKey, 100*(got/tc.bitsPerKey-1), k)
			require.GreaterOrEqual(t, got, tc.bitsPerKey*0.99)
			require.LessOrEqual(t, got, tc.bitsPerKey*1.03)
			require.InDelta(t, tc.k, k, 1)
		})
	}
}

func TestOptimalBlockedRefuses(t *testing.T) {
	_, _, err := OptimalBlocked(1000, MinBlockedP/2)
	require.ErrorIs(t, err, ErrBadOptions)
	_, _, err = OptimalBlocked(0, 0.01)
	require.ErrorIs(t, err, ErrInvalidN)
	_, _, err = OptimalBlocked(1000, 1)
	require.ErrorIs(t, err, ErrInvalidP)
}

// sizingRow is one line of testdata/sizing/sizing.tsv: m and k for n and
// p by one formula, computed in Python from the formulas as the documents
// and the doc comments state them (gen.py there); ok is false where the
// library must refuse.
type sizingRow struct {
	formula string
	n       uint64
	p       float64
	m       uint64
	k       uint32
	ok      bool
}

// TestSizingTable checks every sizing formula against the independently
// computed table, over n from 1 to 10^12 and p from 0.5 to 1e-20: v1.1
// (its reference code's constants), classic v2 (OptimalClassic), the
// murmur2-seeds scheme with and without a prime m, and Create's default classic layout
// below MinBlockedP; and, for n = 12345, that Create writes those m and k.
func TestSizingTable(t *testing.T) {
	create := map[string]*CreateOptions{
		"v1":          {Format: format.V1},
		"classic":     {Layout: format.LayoutClassic},
		"seeds":       {Scheme: format.SchemeMurmurSeeds},
		"seeds-prime": {Scheme: format.SchemeMurmurSeeds, PrimeM: true},
		"default":     nil,
	}
	rows := readSizingTable(t)
	require.Greater(t, len(rows), 700)
	for _, r := range rows {
		m, k, err := sizingFormulas[r.formula](r.n, r.p)
		if !r.ok {
			require.Error(t, err, "%s n=%d p=%v: refused", r.formula, r.n, r.p)
			continue
		}
		require.NoError(t, err, "%s n=%d p=%v", r.formula, r.n, r.p)
		require.Equal(t, [2]uint64{r.m, uint64(r.k)}, [2]uint64{m, uint64(k)}, "%s n=%d p=%v: m, k", r.formula, r.n, r.p)
		if r.n == 12345 && r.m < 1<<24 {
			f := newTestFilter(t, r.n, r.p, create[r.formula])
			require.Equal(t, [2]uint64{r.m, uint64(r.k)}, [2]uint64{f.M(), uint64(f.K())}, "Create %s n=%d p=%v", r.formula, r.n, r.p)
		}
	}
}

// sizingFormulas are the sizing functions of testdata/sizing/sizing.tsv,
// by the name of its formula column.
var sizingFormulas = map[string]func(n uint64, p float64) (uint64, uint32, error){
	"v1":          sizing.V1,
	"classic":     OptimalClassic,
	"seeds":       func(n uint64, p float64) (uint64, uint32, error) { return sizing.Seeds(n, p, false) },
	"seeds-prime": func(n uint64, p float64) (uint64, uint32, error) { return sizing.Seeds(n, p, true) },
	"default":     withDefaultsSize,
}

// Every sizing function refuses n = 0 with ErrInvalidN and a p outside
// (0, 1) with ErrInvalidP, p = 0 and p = 1 included; the murmur2-seeds sizing
// also refuses a p that its 32-bit float turns into 0 or 1.
func TestSizingRefusals(t *testing.T) {
	formulas := maps.Clone(sizingFormulas)
	formulas["blocked"] = OptimalBlocked
	for name, size := range formulas {
		for _, tc := range []struct {
			n    uint64
			p    float64
			want error
		}{
			{0, 0.01, ErrInvalidN}, {100, 0, ErrInvalidP}, {100, 1, ErrInvalidP},
			{100, -0.5, ErrInvalidP}, {100, 1.5, ErrInvalidP},
			{100, math.NaN(), ErrInvalidP}, {100, math.Inf(1), ErrInvalidP},
		} {
			_, _, err := size(tc.n, tc.p)
			require.ErrorIs(t, err, tc.want, "%s n=%d p=%v", name, tc.n, tc.p)
		}
	}
	for _, p := range []float64{1e-50, 1 - 1e-11} {
		_, _, err := sizing.Seeds(100, p, false)
		require.ErrorIs(t, err, ErrInvalidP, "p=%v is %v as a 32-bit float", p, float32(p))
	}
}

// withDefaultsSize sizes n and p as Create does with no options.
func withDefaultsSize(n uint64, p float64) (uint64, uint32, error) {
	o, sizeFor := withDefaults(nil, n, p)
	return o.size(n, sizeFor)
}

func readSizingTable(t *testing.T) []sizingRow {
	t.Helper()
	var rows []sizingRow
	for i, line := range testkit.Lines(t, filepath.Join("testdata", "sizing", "sizing.tsv"))[1:] {
		f := strings.Split(string(line), "\t")
		require.Len(t, f, 5, "line %d", i+2)
		r := sizingRow{formula: f[0], n: parseU64(t, f[1], 10), ok: f[3] != "error"}
		var err error
		r.p, err = strconv.ParseFloat(f[2], 64)
		require.NoError(t, err, "line %d", i+2)
		if r.ok {
			r.m, r.k = parseU64(t, f[3], 10), uint32(parseU64(t, f[4], 10))
		}
		rows = append(rows, r)
	}
	return rows
}
