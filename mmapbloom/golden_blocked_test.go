package mmapbloom

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// blockedVector is one golden vector of testdata/blocked512, written by a
// Python transcription of FORMAT.md's blocked512 spec (README.md there).
type blockedVector struct {
	name          string
	m             uint64
	k             uint32
	seed          uint64
	setBits       uint64
	sha           string // sha256 of the bit array after every add, hex
	added, probed []goldenKey
}

// goldenKey is one add or query line of a vector.
type goldenKey struct {
	line    int
	key     []byte
	h       uint64 // xxh3-64(key, seed)
	present bool   // TestAndAdd's answer (add) or Test's after every add (query)
	locs    []uint64
}

// refBlocked512 is FORMAT.md's blocked512 position spec written out
// plainly, sharing no code with internal/hashing/blocked.go: h = xxh3-64(key, seed); block =
// the high 64 bits of h * (m/512); g = the low 32 bits of h; position j =
// 512 block + ((g * phi^(j+1)) mod 2^32) >> 23, phi = 0x9e3779b9.
func refBlocked512(key []byte, m uint64, k uint32, seed uint64) (h uint64, locs []uint64) {
	h = xxh3.HashSeed(key, seed)
	block, _ := bits.Mul64(h, m/512)
	g := uint32(h)
	mult := uint32(1)
	for range k {
		mult *= 0x9e3779b9
		locs = append(locs, 512*block+uint64((g*mult)>>23))
	}
	return h, locs
}

// refAnswers adds keys to a plain bit set by the reference positions and
// returns what TestAndAdd answers for each key in order, the bit set, and
// a function that answers Test on it.
func refAnswers(v blockedVector) (addAnswers []bool, set []byte, test func([]byte) bool) {
	set = make([]byte, v.m/8)
	has := func(locs []uint64) bool {
		for _, p := range locs {
			if set[p/8]&(1<<(p%8)) == 0 {
				return false
			}
		}
		return true
	}
	for _, a := range v.added {
		_, locs := refBlocked512(a.key, v.m, v.k, v.seed)
		addAnswers = append(addAnswers, has(locs))
		for _, p := range locs {
			set[p/8] |= 1 << (p % 8)
		}
	}
	return addAnswers, set, func(key []byte) bool {
		_, locs := refBlocked512(key, v.m, v.k, v.seed)
		return has(locs)
	}
}

// TestBlocked512Golden freezes the blocked512 layout: the reference
// transcription in this file, the library's Locations and, with every
// kernel this CPU runs, TestAndAdd, Test, TestBatch, AddBatch and
// TestAndAddBatch all give exactly the positions, answers (false positives
// included) and bit arrays of the golden vectors.
func TestBlocked512Golden(t *testing.T) {
	vectors := readBlockedVectors(t)
	blocks := map[uint64]bool{}
	for _, v := range vectors {
		blocks[v.m/hashing.BlockBits] = true
	}
	require.True(t, blocks[1], "a vector of one block")
	require.True(t, blocks[3] && blocks[101], "vectors of an odd number of blocks")
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			checkReference(t, v)
			f := newBlockedVectorFilter(t, v)
			for _, g := range append(v.added, v.probed...) {
				require.Equal(t, g.locs, f.Locations(g.key), "line %d: Locations", g.line)
			}
			kerneltest.ForEach(t, func(t *testing.T) {
				single := newBlockedVectorFilter(t, v)
				for _, a := range v.added {
					present, err := single.TestAndAdd(a.key)
					require.NoError(t, err)
					require.Equal(t, a.present, present, "line %d: TestAndAdd", a.line)
				}
				checkVectorFilter(t, v, single)

				batch := newBlockedVectorFilter(t, v)
				require.NoError(t, batch.AddBatch(keysOfGolden(v.added)))
				checkVectorFilter(t, v, batch)

				tab := newBlockedVectorFilter(t, v)
				got := make([]bool, len(v.added))
				require.NoError(t, tab.TestAndAddBatch(keysOfGolden(v.added), got))
				for i, a := range v.added {
					require.Equal(t, a.present, got[i], "line %d: TestAndAddBatch", a.line)
				}
				checkVectorFilter(t, v, tab)
			})
		})
	}
}

// checkReference checks the vector, written in Python, against the Go
// transcription of the spec: hashes, positions, answers and bit array.
func checkReference(t *testing.T, v blockedVector) {
	t.Helper()
	addAnswers, set, test := refAnswers(v)
	for i, a := range v.added {
		h, locs := refBlocked512(a.key, v.m, v.k, v.seed)
		require.Equal(t, a.h, h, "line %d: xxh3-64", a.line)
		require.Equal(t, a.locs, locs, "line %d: positions", a.line)
		require.Equal(t, a.present, addAnswers[i], "line %d: TestAndAdd answer", a.line)
	}
	for _, q := range v.probed {
		h, locs := refBlocked512(q.key, v.m, v.k, v.seed)
		require.Equal(t, q.h, h, "line %d: xxh3-64", q.line)
		require.Equal(t, q.locs, locs, "line %d: positions", q.line)
		require.Equal(t, q.present, test(q.key), "line %d: Test answer", q.line)
	}
	sum := sha256.Sum256(set)
	require.Equal(t, v.sha, hex.EncodeToString(sum[:]), "bit array")
}

// newBlockedVectorFilter creates the vector's filter as the issue's
// example does: CreateWithMK, blocked512, the seed fixed.
func newBlockedVectorFilter(t *testing.T, v blockedVector) *Filter {
	t.Helper()
	f, err := CreateWithMK(filepath.Join(t.TempDir(), "golden.bloom"), v.m, v.k,
		&CreateOptions{Layout: format.LayoutBlocked512, Seed: v.seed, FixedSeed: true})
	require.NoError(t, err)
	watch(t, f)
	return f
}

// checkVectorFilter checks a filter holding the vector's added keys: its
// bit array as written to the file, and Test and TestBatch on every query.
func checkVectorFilter(t *testing.T, v blockedVector, f *Filter) {
	t.Helper()
	raw, err := os.ReadFile(f.Path())
	require.NoError(t, err)
	sum := sha256.Sum256(raw[format.HeaderSize : format.HeaderSize+v.m/8])
	require.Equal(t, v.sha, hex.EncodeToString(sum[:]), "bit array after the adds")
	st, err := f.Stats()
	require.NoError(t, err)
	require.Equal(t, v.setBits, st.SetBits)

	keys := keysOfGolden(v.probed)
	batch := make([]bool, len(keys))
	require.NoError(t, f.TestBatch(keys, batch))
	for i, q := range v.probed {
		present, err := f.Test(q.key)
		require.NoError(t, err)
		require.Equal(t, q.present, present, "line %d: Test", q.line)
		require.Equal(t, q.present, batch[i], "line %d: TestBatch", q.line)
	}
}

func keysOfGolden(gs []goldenKey) [][]byte {
	keys := make([][]byte, len(gs))
	for i, g := range gs {
		keys[i] = g.key
	}
	return keys
}

// TestBlocked512FormatExample is the example stated in FORMAT.md:
// CreateWithMK(path, 1024, 4), blocked512, seed 1. Keys "key-0" ..
// "key-63" fall 34/30 into the two blocks, and "a" is at [682 526 774 543].
func TestBlocked512FormatExample(t *testing.T) {
	f, err := CreateWithMK(filepath.Join(t.TempDir(), "example.bloom"), 1024, 4,
		&CreateOptions{Layout: format.LayoutBlocked512, Seed: 1, FixedSeed: true})
	require.NoError(t, err)
	watch(t, f)
	var perBlock [2]int
	for i := range 64 {
		perBlock[f.Locations(fmt.Appendf(nil, "key-%d", i))[0]/hashing.BlockBits]++
	}
	require.Equal(t, [2]int{34, 30}, perBlock)
	require.Equal(t, []uint64{682, 526, 774, 543}, f.Locations([]byte("a")))
}

// readBlockedVectors reads every vector of testdata/blocked512.
func readBlockedVectors(t *testing.T) []blockedVector {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "blocked512", "*.txt.gz"))
	require.NoError(t, err)
	require.Len(t, paths, 6, "testdata/blocked512/README.md lists six vectors")
	var vs []blockedVector
	for _, path := range paths {
		vs = append(vs, parseBlockedVector(t, path))
	}
	return vs
}

// parseBlockedVector reads one vector (format in testdata/blocked512/README.md).
func parseBlockedVector(t *testing.T, path string) blockedVector {
	t.Helper()
	v := blockedVector{name: strings.TrimSuffix(filepath.Base(path), ".txt.gz")}
	for i, raw := range testkit.Lines(t, path) {
		line := i + 1
		f := strings.Fields(string(raw))
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "m":
			v.m = parseU64(t, f[1], 10)
		case "k":
			v.k = uint32(parseU64(t, f[1], 10))
		case "seed":
			v.seed = parseU64(t, f[1], 10)
		case "bits":
			v.setBits, v.sha = parseU64(t, f[1], 10), f[2]
		case "add", "query":
			g := parseGoldenKey(t, line, f[1:])
			require.Len(t, g.locs, int(v.k), "line %d", line)
			if f[0] == "add" {
				v.added = append(v.added, g)
			} else {
				v.probed = append(v.probed, g)
			}
		default:
			t.Fatalf("%s:%d: unknown line %q", path, line, raw)
		}
	}
	require.NotZero(t, v.m, path)
	require.NotEmpty(t, v.added, path)
	require.NotEmpty(t, v.probed, path)
	return v
}

// parseGoldenKey parses the fields after "add" or "query".
func parseGoldenKey(t *testing.T, line int, f []string) goldenKey {
	t.Helper()
	require.GreaterOrEqual(t, len(f), 4, "line %d", line)
	g := goldenKey{line: line, key: []byte{}, h: parseU64(t, f[1], 16), present: f[2] == "1"}
	if f[0] != "-" {
		var err error
		g.key, err = hex.DecodeString(f[0])
		require.NoError(t, err, "line %d", line)
	}
	for _, p := range f[3:] {
		g.locs = append(g.locs, parseU64(t, p, 10))
	}
	return g
}

func parseU64(t *testing.T, s string, base int) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, base, 64)
	require.NoError(t, err)
	return v
}
