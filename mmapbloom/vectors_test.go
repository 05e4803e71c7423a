package mmapbloom

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// The seed003 vectors: files written by an independent C transcription of
// the v1.1 reference code (see testdata/vectors/README.md).
var seed003 = []struct {
	name string
	n    uint64
	p    float64
	seed uint64
}{
	{"urls-n10000-p0.0001-seed0", 10000, 0.0001, 0},
	{"mixed-n1000-p0.01-seed7", 1000, 0.01, 7},
}

func TestVectorV1Answers(t *testing.T) {
	for _, v := range seed003 {
		t.Run(v.name, func(t *testing.T) {
			base := filepath.Join(testkit.Testdata("vectors/seed003"), v.name)
			f, err := Open(base+".bin", &OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			defer f.Close()
			queries := testkit.Lines(t, base+".queries.txt.gz")
			expected := testkit.Lines(t, base+".expected.txt")
			require.Len(t, expected, len(queries))
			for i, q := range queries {
				got, err := f.Test(q)
				require.NoError(t, err)
				require.Equal(t, string(expected[i]) == "1", got, "query line %d %q", i+1, q)
			}
		})
	}
}

func TestVectorV1ByteIdentical(t *testing.T) {
	for _, v := range seed003 {
		t.Run(v.name, func(t *testing.T) {
			base := filepath.Join(testkit.Testdata("vectors/seed003"), v.name)
			want, err := os.ReadFile(base + ".bin")
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "v1.bloom")
			f, err := Create(path, v.n, v.p, &CreateOptions{Format: format.V1, Seed: v.seed, FixedSeed: true})
			require.NoError(t, err)
			for _, key := range testkit.Lines(t, base+".added.txt.gz") {
				require.NoError(t, f.Add(key))
			}
			require.NoError(t, f.Close())
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "file differs from the vector")
		})
	}
}

func TestVectorSeed000Locations(t *testing.T) {
	keys := testkit.Lines(t, testkit.Testdata("vectors/seed000/keys.txt"))
	require.Empty(t, keys[7], "line 8 is the empty key")
	for _, tc := range []struct {
		file  string
		n     uint64
		p     float64
		prime bool
	}{
		{"offsets-n1000-p0.05-prime.txt", 1000, 0.05, true},
		{"offsets-n100000-p0.001-noprime.txt", 100000, 0.001, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			lines := testkit.Lines(t, testkit.Testdata("vectors/seed000/"+tc.file))
			f := newTestFilter(t, tc.n, tc.p, &CreateOptions{
				Scheme: format.SchemeMurmurSeeds, PrimeM: tc.prime, Seed: DocumentSeed, FixedSeed: true,
			})
			require.Equal(t, string(lines[0]), fmt.Sprintf("%d %d", f.M(), f.K()))
			require.Len(t, lines[1:], len(keys))
			for i, key := range keys {
				require.Equal(t, parseUints(t, string(lines[i+1])), f.Locations(key), "key %q", key)
				require.NoError(t, f.Add(key))
				ok, err := f.Test(key)
				require.NoError(t, err)
				require.True(t, ok)
			}
		})
	}
}

func parseUints(t *testing.T, s string) []uint64 {
	var out []uint64
	for _, w := range strings.Fields(s) {
		v, err := strconv.ParseUint(w, 10, 64)
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}
