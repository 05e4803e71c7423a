package manifest

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// update rewrites testdata/*.golden: go test ./mmapbloom/internal/manifest -update.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// scalable and windowed return valid manifests of each kind, as CreateSet
// writes them (RedisBloom's defaults; a window of an hour kept 3 times).
func scalable() *Manifest {
	return &Manifest{
		Version: Version, Generation: 3, Kind: KindScalable, N: 1000, P: 0.01,
		Layout: format.LayoutBlocked512, Seed: 0x9e3779b97f4a7c15, Expansion: 2, Tightening: 0.5, Next: 3,
		Layers: []Layer{{File: LayerName(1), N: 2000, P: 0.0025}, {File: LayerName(2), N: 4000, P: 0.00125}},
	}
}

func windowed() *Manifest {
	return &Manifest{
		Version: Version, Generation: 7, Kind: KindWindowed, N: 500, P: 0.003, Seed: 42,
		WindowNS: int64(time.Hour), Keep: 3, T0: 1_700_000_000_000_000_000, Refresh: true, Next: 9,
		Layers: []Layer{
			{File: LayerName(6), N: 500, P: 0.001, Window: 4},
			{File: LayerName(7), N: 500, P: 0.001, Window: 5},
			{File: LayerName(8), N: 500, P: 0.001, Window: 7},
		},
	}
}

func TestLayerName(t *testing.T) {
	for _, tc := range []struct {
		i    uint64
		want string
	}{
		{0, "L000000.bloom"},
		{1, "L000001.bloom"},
		{999_999, "L999999.bloom"},
		{1_234_567, "L1234567.bloom"},
	} {
		require.Equal(t, tc.want, LayerName(tc.i))
		var num uint64
		require.True(t, layerNumber(tc.want, &num), tc.want)
		require.Equal(t, tc.i, num, tc.want)
	}
}

// TestWindowAt: window i covers [t0 + i D, t0 + (i+1) D), before t0 too
// (floor division), and WindowEnd(i) is the start of window i+1.
func TestWindowAt(t *testing.T) {
	const d = int64(time.Hour)
	m := &Manifest{Kind: KindWindowed, WindowNS: d, T0: 1000}
	for _, tc := range []struct {
		at   int64 // Unix ns
		want int64
	}{
		{1000, 0},
		{1000 + d - 1, 0},
		{1000 + d, 1},
		{1000 + 5*d + 7, 5},
		{999, -1},
		{1000 - d, -1},
		{1000 - d - 1, -2},
	} {
		got := m.WindowAt(time.Unix(0, tc.at))
		require.Equal(t, tc.want, got, "at %d", tc.at)
		require.Equal(t, time.Unix(0, 1000+(tc.want+1)*d), m.WindowEnd(got))
		require.Less(t, tc.at, m.WindowEnd(got).UnixNano())
		require.GreaterOrEqual(t, tc.at, m.WindowEnd(got-1).UnixNano())
	}
	require.Equal(t, time.Duration(d), m.Window())
}

func TestKindAndLists(t *testing.T) {
	s, w := scalable(), windowed()
	require.False(t, s.Windowed())
	require.True(t, s.Grows())
	require.True(t, w.Windowed())
	require.False(t, w.Grows(), "a windowed set without expansion")
	w.Expansion, w.Tightening = 2, 0.5
	require.True(t, w.Grows())
	require.True(t, s.Lists(LayerName(2)))
	require.False(t, s.Lists(LayerName(3)))
	require.False(t, s.Lists(Name))
}

// TestCheck: the valid manifests pass; each broken field is ErrBadSet
// with a message naming it.
func TestCheck(t *testing.T) {
	require.NoError(t, scalable().Check())
	require.NoError(t, windowed().Check())
	tests := []struct {
		name   string
		base   func() *Manifest
		break_ func(m *Manifest)
		says   string
	}{
		{"version", scalable, func(m *Manifest) { m.Version = 2 }, "manifest version 2"},
		{"kind", scalable, func(m *Manifest) { m.Kind = "cuckoo" }, `manifest kind "cuckoo"`},
		{"no layer", scalable, func(m *Manifest) { m.Layers = nil }, "lists no layer"},
		{"no window", windowed, func(m *Manifest) { m.WindowNS = 0 }, "manifest window 0 ns"},
		{"keep 0", windowed, func(m *Manifest) { m.Keep = 0 }, "keep 0"},
		{"expansion 0", scalable, func(m *Manifest) { m.Expansion = 0 }, "manifest expansion 0"},
		{"tightening 1", scalable, func(m *Manifest) { m.Tightening = 1 }, "tightening 1"},
		{"tightening 0", scalable, func(m *Manifest) { m.Tightening = 0 }, "tightening 0"},
		{"windowed expansion without tightening", windowed, func(m *Manifest) { m.Expansion = 2 }, "tightening 0"},
		{"path", scalable, func(m *Manifest) { m.Layers[0].File = "../L000001.bloom" }, `layer file "../L000001.bloom"`},
		{"dot", scalable, func(m *Manifest) { m.Layers[0].File = "." }, `layer file "."`},
		{"dotdot", scalable, func(m *Manifest) { m.Layers[0].File = ".." }, `layer file ".."`},
		{"twice", scalable, func(m *Manifest) { m.Layers[1].File = m.Layers[0].File }, "listed twice"},
		{"at next", scalable, func(m *Manifest) { m.Next = 2 }, "at or after next 2"},
		{"window order", windowed, func(m *Manifest) { m.Layers[2].Window = 3 }, "of window 3 after window 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.base()
			tc.break_(m)
			err := m.Check()
			require.ErrorIs(t, err, errs.ErrBadSet)
			require.Contains(t, err.Error(), tc.says)
		})
	}
}

// TestWriteGolden locks the bytes Write puts in MANIFEST (indented JSON,
// a final newline, omitempty fields left out) and reads them back
// equal; no temporary file is left.
func TestWriteGolden(t *testing.T) {
	for name, m := range map[string]*Manifest{"scalable": scalable(), "windowed": windowed()} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, Write(dir, m))
			got, err := os.ReadFile(filepath.Join(dir, Name))
			require.NoError(t, err)
			testkit.Golden(t, filepath.Join("testdata", name+".golden"), string(got), *update)
			back, err := Read(dir)
			require.NoError(t, err)
			require.Equal(t, m, back)
			require.Equal(t, []string{Name}, testkit.DirNames(t, dir))
		})
	}
}

// TestReadErrors: everything Read refuses is ErrBadSet, naming the
// directory.
func TestReadErrors(t *testing.T) {
	good, err := json.Marshal(scalable())
	require.NoError(t, err)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path given to Read
		says  string
	}{
		{"no directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "missing") }, "no such file"},
		{"a file", func(t *testing.T, dir string) string {
			return testkit.WriteFile(t, dir, "plain", good)
		}, "a file, not a filter set directory"},
		{"no MANIFEST", func(t *testing.T, dir string) string { return dir }, "no MANIFEST"},
		{"bad JSON", func(t *testing.T, dir string) string {
			testkit.WriteFile(t, dir, Name, good[:len(good)/2])
			return dir
		}, "MANIFEST: "},
		{"wrong type", func(t *testing.T, dir string) string {
			testkit.WriteFile(t, dir, Name, []byte(`{"version": "1"}`))
			return dir
		}, "cannot unmarshal"},
		{"refused by Check", func(t *testing.T, dir string) string {
			testkit.WriteFile(t, dir, Name, []byte(`{"version": 1, "kind": "scalable", "layers": []}`))
			return dir
		}, "lists no layer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t, t.TempDir())
			m, err := Read(path)
			require.Nil(t, m)
			require.ErrorIs(t, err, errs.ErrBadSet)
			require.Contains(t, err.Error(), "mmapbloom: "+path+": ")
			require.Contains(t, err.Error(), tc.says)
		})
	}
}
