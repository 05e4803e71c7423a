package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// TestControlPage locks the bytes of a CONTROL page (format/FORMAT.md,
// "Filter sets"): magic "BLS\x01", version 1 and the generation, little-
// endian, then zeros to 4096 bytes.
func TestControlPage(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteControl(dir, 0x0102030405060708))
	page, err := os.ReadFile(filepath.Join(dir, ControlName))
	require.NoError(t, err)
	require.Len(t, page, ControlSize)
	require.Equal(t, []byte{'B', 'L', 'S', 1, 1, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1}, page[:16])
	require.Equal(t, make([]byte, ControlSize-16), page[16:])
}

// TestControlGeneration: a handle reads the generation written; Raise
// moves it up, never down; a second mapping (another handle, read-only)
// sees every raise at once.
func TestControlGeneration(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteControl(dir, 5))
	c, err := OpenControl(dir, false)
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	r, err := OpenControl(dir, true)
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	for _, tc := range []struct{ raise, want uint64 }{
		{5, 5}, {4, 5}, {0, 5}, {6, 6}, {100, 100}, {99, 100}, {^uint64(0), ^uint64(0)},
	} {
		c.Raise(tc.raise)
		require.Equal(t, tc.want, c.Generation(), "after Raise(%d)", tc.raise)
		require.Equal(t, tc.want, r.Generation(), "the other mapping, after Raise(%d)", tc.raise)
	}
}

// TestOpenControlRefuses: a CONTROL that is missing, of another size, or
// with another magic or version is ErrBadSet.
func TestOpenControlRefuses(t *testing.T) {
	page := func(edit func(p []byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			require.NoError(t, WriteControl(dir, 1))
			path := filepath.Join(dir, ControlName)
			p, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, edit(p), 0o644))
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		says  string
	}{
		{"missing", func(*testing.T, string) {}, "no such file"},
		{"short", page(func(p []byte) []byte { return p[:ControlSize-1] }), "4095 bytes"},
		{"long", page(func(p []byte) []byte { return append(p, 0) }), "4097 bytes"},
		{"empty", page(func(p []byte) []byte { return nil }), "0 bytes"},
		{"magic", page(func(p []byte) []byte { p[0] = 'X'; return p }), "bad magic or version"},
		{"filter magic", page(func(p []byte) []byte { copy(p, "BLF\x01"); return p }), "bad magic or version"},
		{"version", page(func(p []byte) []byte { p[4] = 2; return p }), "bad magic or version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			for _, readOnly := range []bool{false, true} {
				c, err := OpenControl(dir, readOnly)
				require.Nil(t, c)
				require.ErrorIs(t, err, errs.ErrBadSet)
				require.Contains(t, err.Error(), tc.says)
			}
		})
	}
}

// TestGuardTruncated: CONTROL truncated under a handle's mapping makes
// the generation's load fault; Guard turns the fault into ErrFileChanged
// naming the file instead of a SIGBUS, and the handle still closes.
func TestGuardTruncated(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteControl(dir, 3))
	c, err := OpenControl(dir, true)
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	var gen uint64
	require.NoError(t, c.Guard(func() error { gen = c.Generation(); return nil }))
	require.Equal(t, uint64(3), gen)
	require.NoError(t, os.Truncate(filepath.Join(dir, ControlName), 0))
	err = c.Guard(func() error { gen = c.Generation(); return nil })
	require.ErrorIs(t, err, errs.ErrFileChanged)
	require.Contains(t, err.Error(), ControlName)
}
