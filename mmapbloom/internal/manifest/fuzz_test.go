package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// FuzzDecode feeds Decode any bytes: it refuses them with ErrBadSet, or
// returns a manifest that Check accepts and that Encode and Decode give
// back unchanged. Seeds: the golden MANIFESTs of testdata/ and a few
// near misses (go test -fuzz FuzzDecode ./mmapbloom/internal/manifest).
func FuzzDecode(f *testing.F) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	require.NoError(f, err)
	require.NotEmpty(f, goldens)
	for _, path := range goldens {
		b, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(b)
	}
	for _, s := range []string{
		``,
		`null`,
		`{}`,
		`[]`,
		`{"version": 1, "kind": "scalable", "expansion": 2, "tightening": 0.5, "next": 2, "layers": [{"file": "L000001.bloom"}]}`,
		`{"version": 1, "kind": "windowed", "window_ns": 1, "keep": 1, "next": 1, "layers": [{"file": "L000001.bloom"}]}`,
		`{"version": 1, "kind": "scalable", "expansion": 2, "tightening": 0.5, "next": 9, "layers": [{"file": "../x"}]}`,
		`{"version": 1, "kind": "scalable", "expansion": 2, "tightening": 0.5, "next": 9, "LAYERS": [{"file": "a"}], "layers": [{"file": "b"}]}`,
		`{"version": 1e400}`,
		`{"n": -1}`,
		`{"layout": 300}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			require.Nil(t, m)
			require.True(t, errors.Is(err, errs.ErrBadSet), "%v", err)
			return
		}
		require.NoError(t, m.Check())
		enc, err := Encode(m)
		require.NoError(t, err)
		back, err := Decode(enc)
		require.NoError(t, err, "%s", enc)
		require.Equal(t, m, back)
	})
}
