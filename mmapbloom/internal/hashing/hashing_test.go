package hashing

import (
	"encoding/hex"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// TestSeed000Positions checks the murmur2-seeds scheme (MurmurHash64A
// under the k LCG seeds from LCGSeed, reduced mod m) against the offsets
// an independent C transcription wrote (testdata/vectors/seed000; line 8
// of keys.txt is the empty key, so the hash's tail path runs on 0 bytes).
func TestSeed000Positions(t *testing.T) {
	keys := testkit.Lines(t, testkit.Testdata("vectors/seed000/keys.txt"))
	require.Empty(t, keys[7], "line 8 is the empty key")
	for _, file := range []string{"offsets-n1000-p0.05-prime.txt", "offsets-n100000-p0.001-noprime.txt"} {
		t.Run(file, func(t *testing.T) {
			lines := testkit.Lines(t, testkit.Testdata("vectors/seed000/"+file))
			var m uint64
			var k uint32
			_, err := fmt.Sscanf(string(lines[0]), "%d %d", &m, &k)
			require.NoError(t, err)
			l := NewLocator(format.Header{Scheme: format.SchemeMurmurSeeds, M: m, K: k, Seed: LCGSeed})
			require.Len(t, lines[1:], len(keys))
			for i, key := range keys {
				require.Equal(t, uints(t, string(lines[i+1])), l.Locate(key, make([]uint64, k)), "key %q", key)
			}
		})
	}
}

// TestSeed003Answers checks v1.1's double hashing (doubleV1, with
// MixSeed) against the files an independent C transcription of the v1.1
// reference code wrote (testdata/vectors/seed003): every added key's
// positions are set in the file's bit array, and every query is answered
// as expected.txt says, false positives included.
func TestSeed003Answers(t *testing.T) {
	for _, name := range []string{"urls-n10000-p0.0001-seed0", "mixed-n1000-p0.01-seed7"} {
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(testkit.Testdata("vectors/seed003"), name)
			file, err := os.ReadFile(base + ".bin")
			require.NoError(t, err)
			hdr, err := format.Decode(file)
			require.NoError(t, err)
			require.Equal(t, format.SchemeMurmurDoubleV1, hdr.Scheme)
			l := NewLocator(hdr)
			array := file[format.HeaderSize:]
			present := func(key []byte) bool {
				for _, p := range l.Locate(key, make([]uint64, hdr.K)) {
					if array[p/8]&(1<<(p%8)) == 0 {
						return false
					}
				}
				return true
			}
			for _, key := range testkit.Lines(t, base+".added.txt.gz") {
				require.True(t, present(key), "added key %q", key)
			}
			queries := testkit.Lines(t, base+".queries.txt.gz")
			expected := testkit.Lines(t, base+".expected.txt")
			require.Len(t, expected, len(queries))
			for i, q := range queries {
				require.Equal(t, string(expected[i]) == "1", present(q), "query line %d %q", i+1, q)
			}
		})
	}
}

// TestPythonGoldenPositions checks every scheme against the positions
// of testdata/py (the first 300 queries of queries.hex, per file): the
// Go library wrote them and the Python package's independent twin
// (python/src/mmapbloom/hashing.py) is tested against them, so a change of
// either breaks one of the two.
func TestPythonGoldenPositions(t *testing.T) {
	dir := testkit.Testdata("py")
	queries := testkit.Lines(t, filepath.Join(dir, "queries.hex"))
	files, err := filepath.Glob(filepath.Join(dir, "*.bloom"))
	require.NoError(t, err)
	require.Len(t, files, 6, "one file per scheme, as testdata/py/README.md lists")
	schemes := map[format.Scheme]bool{}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".bloom")
		t.Run(name, func(t *testing.T) {
			file, err := os.ReadFile(path)
			require.NoError(t, err)
			hdr, err := format.Decode(file)
			require.NoError(t, err)
			schemes[hdr.Scheme] = true
			l := NewLocator(hdr)
			want := testkit.Lines(t, filepath.Join(dir, name+".locations"))
			require.Len(t, want, 300)
			for i, w := range want {
				key, err := hex.DecodeString(string(queries[i]))
				require.NoError(t, err)
				require.Equal(t, uints(t, string(w)), l.Locate(key, make([]uint64, hdr.K)), "query %d %q", i, key)
			}
		})
	}
	require.Len(t, schemes, 5, "the five schemes of format/FORMAT.md")
}

// TestBlockedKnown: the blocked512 positions of key "a" in the golden
// vector m1024-k4-seed1 of mmapbloom/testdata/blocked512 (its README),
// written by a Python transcription of the spec; BlockHash and Locate
// agree with BlockOf, BlockMask and PhiPow.
func TestBlockedKnown(t *testing.T) {
	l := NewLocator(format.Header{Scheme: format.SchemeXXH3Blocked, M: 1024, K: 4, Seed: 1})
	locs := l.Locate([]byte("a"), make([]uint64, 4))
	require.Equal(t, []uint64{682, 526, 774, 543}, locs)
	block, g := l.BlockHash([]byte("a"))
	require.Equal(t, uint64(1), block)
	var want [BlockWords]uint64
	for _, p := range locs {
		in := p - block*BlockBits
		want[in/64] |= 1 << (in % 64)
	}
	require.Equal(t, want, BlockMask(g, 4))
}

// TestBlockMask: the mask of g holds exactly the in-block bits of the
// probes (g * PhiPow[j]) >> 23 for j < k, for k from 1 to format.MaxK.
func TestBlockMask(t *testing.T) {
	for _, g := range []uint32{0, 1, 0xdeadbeef, 0xffffffff, 0x9e3779b9} {
		for k := uint32(1); k <= format.MaxK; k++ {
			var want [BlockWords]uint64
			for j := range k {
				bit := (g * PhiPow[j]) >> 23
				want[bit/64] |= 1 << (bit % 64)
			}
			mask := BlockMask(g, k)
			require.Equal(t, want, mask, "g %#x k %d", g, k)
			n := 0
			for _, w := range mask {
				n += bits.OnesCount64(w)
			}
			require.LessOrEqual(t, n, int(k))
		}
	}
}

func TestPhiPow(t *testing.T) {
	require.Equal(t, uint32(0x9e3779b9), PhiPow[0])
	for j := 1; j < len(PhiPow); j++ {
		require.Equal(t, PhiPow[j-1]*0x9e3779b9, PhiPow[j], "j %d", j)
	}
	require.Len(t, PhiPow, format.MaxK)
}

// TestReduce: the high word of h*m, in [0, m), monotone in h.
func TestReduce(t *testing.T) {
	const max = ^uint64(0)
	for _, tc := range []struct{ h, m, want uint64 }{
		{0, 1000, 0},
		{max, 1000, 999},
		{1 << 63, 1000, 500},
		{1 << 63, 1001, 500},
		{max, 1, 0},
		{12345, 0, 0},
		{max, max, max - 1},
		{1 << 62, 1 << 40, 1 << 38},
	} {
		require.Equal(t, tc.want, Reduce(tc.h, tc.m), "Reduce(%#x, %d)", tc.h, tc.m)
	}
}

// TestMixSeed: MIX_UINT64, the 32-bit fold of a hash.
func TestMixSeed(t *testing.T) {
	for _, tc := range []struct{ h, want uint64 }{
		{0, 0},
		{0x1234567890abcdef, 0x12345678 ^ 0x90abcdef},
		{0xffffffff00000000, 0xffffffff},
		{0xffffffffffffffff, 0},
		{0x00000001_00000001, 0},
	} {
		require.Equal(t, tc.want, MixSeed(tc.h), "MixSeed(%#x)", tc.h)
	}
}

// TestDoubleDistinct: SchemeMurmurDouble's step is never 0 mod m, so a
// key's positions are in [0, m) and at least min(k, 2) of them distinct,
// for m prime, even, a power of two and tiny; for v1.1's scheme the
// positions are in [0, m) too.
func TestDoubleDistinct(t *testing.T) {
	for _, m := range []uint64{2, 3, 64, 1000, 1 << 20, 1_000_003} {
		for _, k := range []uint32{1, 2, 7, format.MaxK} {
			dbl := NewLocator(format.Header{Scheme: format.SchemeMurmurDouble, M: m, K: k, Seed: 9})
			v1 := NewLocator(format.Header{Scheme: format.SchemeMurmurDoubleV1, M: m, K: k, Seed: 9})
			for i := range 2000 {
				key := []byte("key-" + strconv.Itoa(i))
				locs := dbl.Locate(key, make([]uint64, k))
				if slices.Max(locs) >= m || len(testkit.Distinct(locs)) < int(min(k, 2)) {
					t.Fatalf("murmur2-double, m %d k %d key %q: positions %v", m, k, key, locs)
				}
				if locs := v1.Locate(key, make([]uint64, k)); slices.Max(locs) >= m {
					t.Fatalf("murmur2-double-v1, m %d k %d key %q: positions %v", m, k, key, locs)
				}
			}
		}
	}
}

// TestLocateNoAllocs: Locate into a caller's slice allocates nothing, in
// every scheme.
func TestLocateNoAllocs(t *testing.T) {
	key := []byte("https://example.com/no-allocs")
	for s := format.SchemeMurmurDoubleV1; s <= format.SchemeXXH3Remix; s++ {
		l := NewLocator(format.Header{Scheme: s, M: 1 << 20, K: 7, Seed: 3})
		dst := make([]uint64, 7)
		require.Zero(t, testing.AllocsPerRun(100, func() { l.Locate(key, dst) }), "scheme %s", s)
	}
}

// uints parses a line of decimal numbers.
func uints(t *testing.T, s string) []uint64 {
	t.Helper()
	var out []uint64
	for _, w := range strings.Fields(s) {
		v, err := strconv.ParseUint(w, 10, 64)
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}
