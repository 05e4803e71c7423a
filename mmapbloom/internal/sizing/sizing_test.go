package sizing

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// TestKnownSizes: m and k of the vectors an independent C transcription
// wrote (testdata/vectors/README.md: the v1.1 reference code's sizing and
// the murmur2-seeds filter's), and the textbook 9,585,059 bits and 7
// hashes for a million keys at 1%.
func TestKnownSizes(t *testing.T) {
	seeds := func(prime bool) func(uint64, float64) (uint64, uint32, error) {
		return func(n uint64, p float64) (uint64, uint32, error) { return Seeds(n, p, prime) }
	}
	for _, tc := range []struct {
		name string
		size func(uint64, float64) (uint64, uint32, error)
		n    uint64
		p    float64
		m    uint64
		k    uint32
	}{
		{"v1 urls-n10000-p0.0001-seed0", V1, 10000, 0.0001, 191744, 13},
		{"v1 mixed-n1000-p0.01-seed7", V1, 1000, 0.01, 9600, 7},
		{"seeds offsets-n1000-p0.05-prime", seeds(true), 1000, 0.05, 6247, 5},
		{"seeds offsets-n100000-p0.001-noprime", seeds(false), 100000, 0.001, 1437758, 10},
		{"classic textbook", Classic, 1_000_000, 0.01, 9_585_059, 7},
	} {
		m, k, err := tc.size(tc.n, tc.p)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.m, m, tc.name)
		require.Equal(t, tc.k, k, tc.name)
	}
}

// TestGoldenTable checks each rule over the grid of n (1 to 10^12) and p
// (0.99 to 1e-10) of testdata/py/sizing.txt, which the Go library wrote
// (mmapbloom/tests/python's TestPythonGolden) and the Python package's
// sizing is tested against; "error" rows must be refused.
func TestGoldenTable(t *testing.T) {
	rules := map[string]func(uint64, float64) (uint64, uint32, error){
		"classic":     Classic,
		"blocked":     Blocked,
		"v1":          V1,
		"seeds":       func(n uint64, p float64) (uint64, uint32, error) { return Seeds(n, p, false) },
		"seeds-prime": func(n uint64, p float64) (uint64, uint32, error) { return Seeds(n, p, true) },
	}
	rows := 0
	for _, line := range testkit.Lines(t, filepath.Join(testkit.Testdata("py"), "sizing.txt")) {
		f := strings.Fields(string(line))
		size, ok := rules[f[0]]
		if !ok {
			continue // "default": mmapbloom.Create's choice, tested there
		}
		rows++
		n, err := strconv.ParseUint(f[1], 10, 64)
		require.NoError(t, err)
		p, err := strconv.ParseFloat(f[2], 64)
		require.NoError(t, err)
		m, k, err := size(n, p)
		if f[3] == "error" {
			require.Error(t, err, "%s", line)
			continue
		}
		require.NoError(t, err, "%s", line)
		require.Equal(t, f[3]+" "+f[4], strconv.FormatUint(m, 10)+" "+strconv.FormatUint(uint64(k), 10), "%s", line)
	}
	require.Equal(t, 756, rows, "156 rows per rule, 132 for seeds-prime")
}

// TestRefusals: every rule refuses what it cannot size, with the sentinel
// its doc comment names.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		size func() (uint64, uint32, error)
		want error
	}{
		{"classic n=0", func() (uint64, uint32, error) { return Classic(0, 0.01) }, errs.ErrInvalidN},
		{"classic p=0", func() (uint64, uint32, error) { return Classic(10, 0) }, errs.ErrInvalidP},
		{"classic p=1", func() (uint64, uint32, error) { return Classic(10, 1) }, errs.ErrInvalidP},
		{"classic p<0", func() (uint64, uint32, error) { return Classic(10, -0.5) }, errs.ErrInvalidP},
		{"classic p=NaN", func() (uint64, uint32, error) { return Classic(10, math.NaN()) }, errs.ErrInvalidP},
		{"classic p=+Inf", func() (uint64, uint32, error) { return Classic(10, math.Inf(1)) }, errs.ErrInvalidP},
		{"classic too large", func() (uint64, uint32, error) { return Classic(1e15, 1e-10) }, errs.ErrTooLarge},
		{"classic k above MaxK", func() (uint64, uint32, error) { return Classic(1, 1e-300) }, errs.ErrInvalidK},
		{"blocked below MinBlockedP", func() (uint64, uint32, error) { return Blocked(1000, MinBlockedP/2) }, errs.ErrBadOptions},
		{"blocked too large", func() (uint64, uint32, error) { return Blocked(1e15, 1e-5) }, errs.ErrTooLarge},
		{"blocked n=0", func() (uint64, uint32, error) { return Blocked(0, 0.01) }, errs.ErrInvalidN},
		{"v1 n above 2^32", func() (uint64, uint32, error) { return V1(1<<32, 0.01) }, errs.ErrTooLarge},
		{"v1 m above 2^32", func() (uint64, uint32, error) { return V1(1<<31, 1e-4) }, errs.ErrTooLarge},
		{"v1 p=1", func() (uint64, uint32, error) { return V1(10, 1) }, errs.ErrInvalidP},
		{"seeds p 0 as float32", func() (uint64, uint32, error) { return Seeds(10, 1e-50, false) }, errs.ErrInvalidP},
		{"seeds p 1 as float32", func() (uint64, uint32, error) { return Seeds(10, 1-1e-10, false) }, errs.ErrInvalidP},
		{"seeds too large", func() (uint64, uint32, error) { return Seeds(1e15, 1e-10, false) }, errs.ErrTooLarge},
		{"seeds k above MaxK", func() (uint64, uint32, error) { return Seeds(1, 1e-30, false) }, errs.ErrInvalidK},
	} {
		_, _, err := tc.size()
		require.ErrorIs(t, err, tc.want, tc.name)
	}
}

func TestNextPrime(t *testing.T) {
	for _, tc := range []struct{ x, want uint64 }{
		{0, 2}, {1, 2}, {2, 2}, {3, 3}, {4, 5}, {90, 97}, {6247, 6247}, {6241, 6247},
		{1<<31 - 1, 1<<31 - 1}, {1 << 32, 1<<32 + 15}, {1<<61 - 1, 1<<61 - 1},
	} {
		require.Equal(t, tc.want, NextPrime(tc.x), "NextPrime(%d)", tc.x)
	}
}

// TestOneProbeBits: a one-probe filter of OneProbeBits(n, p) bits holds n
// keys at a rate 1 - e^(-n/m) of at most p, and one bit fewer does not.
func TestOneProbeBits(t *testing.T) {
	for _, n := range []uint64{1, 10, 1000, 1_000_000} {
		for _, p := range []float64{0.5, 0.7, 0.9, 0.99} {
			m := OneProbeBits(n, p)
			rate := func(m uint64) float64 { return -math.Expm1(-float64(n) / float64(m)) }
			require.LessOrEqual(t, rate(m), p*(1+1e-12), "n %d p %g m %d", n, p, m)
			if m > 1 {
				require.Greater(t, rate(m-1), p*(1-1e-12), "n %d p %g m-1 %d", n, p, m-1)
			}
		}
	}
}

// TestBlockedFPROneProbe: with k = 1 the Poisson model has a closed form,
// mean 1 - e^(-lambda/512) and second moment
// 1 - 2e^(-lambda/512) + e^(-lambda (1 - q^2)), q = 1 - 1/512.
func TestBlockedFPROneProbe(t *testing.T) {
	const q = 1 - 1.0/512
	for _, lambda := range []float64{0.5, 1, 10, 35, 100, 400} {
		mean, spread := BlockedFPR(lambda, 1)
		wantMean := -math.Expm1(-lambda / 512)
		second := 1 - 2*math.Exp(-lambda/512) + math.Exp(-lambda*(1-q*q))
		require.InDelta(t, wantMean, mean, 1e-12, "lambda %g", lambda)
		require.InDelta(t, math.Sqrt(second-wantMean*wantMean), spread, 1e-9, "lambda %g", lambda)
	}
}

// TestBestBlockedK: the k chosen has a mean rate below both neighbours'.
func TestBestBlockedK(t *testing.T) {
	for _, lambda := range []float64{1, 5, 13, 20, 35, 60, 120, 300} {
		mean, spread, k := BestBlockedK(lambda)
		require.GreaterOrEqual(t, k, uint32(1))
		require.LessOrEqual(t, k, uint32(format.MaxK))
		m, s := BlockedFPR(lambda, k)
		require.Equal(t, m, mean)
		require.Equal(t, s, spread)
		if k > 1 {
			below, _ := BlockedFPR(lambda, k-1)
			require.Greater(t, below, mean, "lambda %g k-1", lambda)
		}
		if k < format.MaxK {
			above, _ := BlockedFPR(lambda, k+1)
			require.GreaterOrEqual(t, above, mean, "lambda %g k+1", lambda)
		}
	}
}

// TestBlockedFits: Blocked's m is whole blocks whose modelled rate three
// spreads above its mean stays at WithMargin(p), at the k it returns.
func TestBlockedFits(t *testing.T) {
	for _, n := range []uint64{1, 100, 12_345, 1_000_000, 1e9} {
		for _, p := range []float64{0.5, 0.1, 0.01, 1e-4, MinBlockedP} {
			m, k, err := Blocked(n, p)
			require.NoError(t, err)
			require.Zero(t, m%512, "n %d p %g", n, p)
			blocks := float64(m / 512)
			mean, spread := BlockedFPR(float64(n)/blocks, k)
			require.LessOrEqual(t, mean+3*spread/math.Sqrt(blocks), WithMargin(p), "n %d p %g", n, p)
		}
	}
}

func TestWithMargin(t *testing.T) {
	for _, tc := range []struct{ p, want float64 }{
		{0.01, 0.01 * (1 - 0.08*0.99)},
		{1e-9, 1e-9 * (1 - 0.08*(1-1e-9))},
		{0.5, 0.5 * 0.96},
		{0.99, 0.99 * (1 - 0.08*0.01)},
	} {
		require.InEpsilon(t, tc.want, WithMargin(tc.p), 1e-15, "p %g", tc.p)
		require.Less(t, WithMargin(tc.p), tc.p)
	}
}

// TestScalableLayer: layer i holds n s^i keys at p (1-r) r^i, floored at
// MinLayerP (or the first layer's rate when lower); the rates of any
// number of layers sum below p plus 1e-19 per floored layer; a capacity
// that overflows is ErrTooLarge.
func TestScalableLayer(t *testing.T) {
	for _, tc := range []struct {
		n  uint64
		p  float64
		s  uint32
		r  float64
		i  int
		wn uint64
		wp float64
	}{
		{100, 0.01, 2, 0.5, 0, 100, 0.005},
		{100, 0.01, 2, 0.5, 1, 200, 0.0025},
		{100, 0.01, 2, 0.5, 3, 800, 0.000625},
		{1000, 0.1, 4, 0.9, 2, 16000, 0.1 * 0.1 * 0.81},
		{100, 0.01, 1, 0.5, 200, 100, MinLayerP},
		{100, 1e-30, 1, 0.5, 5, 100, 1e-30 * 0.5},
	} {
		n, p, err := ScalableLayer(tc.n, tc.p, tc.s, tc.r, tc.i)
		require.NoError(t, err)
		require.Equal(t, tc.wn, n, "%+v", tc)
		require.InEpsilon(t, tc.wp, p, 1e-12, "%+v", tc)
	}
	for _, r := range []float64{0.1, 0.5, 0.9} {
		sum, floored := 0.0, 0
		for i := range 1000 {
			_, p, err := ScalableLayer(10, 0.01, 1, r, i)
			require.NoError(t, err)
			sum += p
			if p == MinLayerP {
				floored++
			}
		}
		require.LessOrEqual(t, sum, 0.01+float64(floored)*MinLayerP, "r %g", r)
	}
	_, _, err := ScalableLayer(1<<62, 0.01, 2, 0.5, 2)
	require.ErrorIs(t, err, errs.ErrTooLarge)
	n, _, err := ScalableLayer(1<<62, 0.01, 2, 0.5, 1)
	require.NoError(t, err)
	require.Equal(t, uint64(1<<63), n)
}

func TestWindowLayer(t *testing.T) {
	n, p := WindowLayer(500, 0.03, 3)
	require.Equal(t, uint64(500), n)
	require.InEpsilon(t, 0.01, p, 1e-15)
	n, p = WindowLayer(7, 0.5, 1)
	require.Equal(t, uint64(7), n)
	require.Equal(t, 0.5, p)
}

// TestCheckNP: n from 1 and p strictly inside (0, 1) pass.
func TestCheckNP(t *testing.T) {
	require.NoError(t, CheckNP(1, math.SmallestNonzeroFloat64))
	require.NoError(t, CheckNP(math.MaxUint64, math.Nextafter(1, 0)))
	require.ErrorIs(t, CheckNP(0, 0.5), errs.ErrInvalidN)
	require.ErrorIs(t, CheckNP(1, math.Inf(-1)), errs.ErrInvalidP)
}

// TestBlockedShapesMemo: Blocked answers from its memo what its search
// answers, for shapes asked before and new ones alike, and the memo
// stays within blockedShapesMax shapes.
func TestBlockedShapesMemo(t *testing.T) {
	tests := []struct {
		n uint64
		p float64
	}{{1, 0.5}, {1000, 0.01}, {100_000, 0.01}, {100_000, 0.001}, {1e9, 1e-4}, {1e12, MinBlockedP}}
	for _, tc := range tests {
		wantM, wantK, err := blockedSearch(tc.n, tc.p)
		require.NoError(t, err)
		for range 2 { // the search, then the memo
			m, k, err := Blocked(tc.n, tc.p)
			require.NoError(t, err)
			require.Equal(t, []uint64{wantM, uint64(wantK)}, []uint64{m, uint64(k)}, "n=%d p=%v", tc.n, tc.p)
		}
	}
	memo := shapeMemo{shapes: map[blockedKey]blockedShape{}}
	for n := uint64(1); n <= blockedShapesMax+10; n++ {
		memo.put(blockedKey{n, 0.5}, blockedShape{512, 1})
		require.LessOrEqual(t, len(memo.shapes), blockedShapesMax)
	}
	s, ok := memo.get(blockedKey{blockedShapesMax + 10, 0.5})
	require.True(t, ok)
	require.Equal(t, blockedShape{512, 1}, s)
}

// BenchmarkBlocked: a shape's search (the cost of every new filter's
// sizing before the memo) against the memo's answer.
func BenchmarkBlocked(b *testing.B) {
	b.Run("search", func(b *testing.B) {
		for b.Loop() {
			_, _, _ = blockedSearch(100_000, 0.01)
		}
	})
	b.Run("memo", func(b *testing.B) {
		for b.Loop() {
			_, _, _ = Blocked(100_000, 0.01)
		}
	})
}
