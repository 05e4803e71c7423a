package mmapbloom

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// TestErrorPrefixOnce: an error that wraps another call's error (a set's
// layer, a lock) reads "mmapbloom: " once, at its start, and still
// wraps its sentinel.
func TestErrorPrefixOnce(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		f, err := Create(filepath.Join(dir, name), 1000, 0.01, nil)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		return filepath.Join(dir, name)
	}
	sealedSet := func(name string) (string, string) {
		s, err := CreateSet(filepath.Join(dir, name), 1000, 0.01, nil)
		require.NoError(t, err)
		require.NoError(t, s.Add([]byte("a")))
		require.NoError(t, s.Close())
		require.NoError(t, SealSet(filepath.Join(dir, name)))
		return filepath.Join(dir, name), filepath.Join(dir, name, "L000000.bloom")
	}
	truncated := mk("truncated.bloom")
	require.NoError(t, os.Truncate(truncated, 100))
	foreign := filepath.Join(dir, "foreign.bloom")
	require.NoError(t, os.WriteFile(foreign, []byte(strings.Repeat("not a filter\n", 20)), 0o644))
	truncSet, layer := sealedSet("trunc.bfset")
	require.NoError(t, os.Truncate(layer, 100))
	missSet, layer := sealedSet("miss.bfset")
	require.NoError(t, os.Remove(layer))
	sealed, _ := sealedSet("sealed.bfset")
	busy := mk("busy.bloom")
	other, err := Open(busy, &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer other.Close()
	f, err := Open(busy, nil)
	require.NoError(t, err)
	defer f.Close()
	openSet, _ := sealedSet("open.bfset")
	s, err := OpenSet(openSet, nil)
	require.NoError(t, err)
	defer s.Close()

	openErr := func(path string) error { _, err := Open(path, nil); return err }
	openSetErr := func(dir string) error { _, err := OpenSet(dir, nil); return err }
	layerErr := func(dir string) error {
		checks, err := VerifySet(dir)
		require.Error(t, err)
		require.Len(t, checks, 1)
		return checks[0].Err
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"open missing", openErr(filepath.Join(dir, "none.bloom")), fs.ErrNotExist},
		{"open truncated", openErr(truncated), format.ErrTruncated},
		{"open foreign", openErr(foreign), format.ErrBadMagic},
		{"open a set", openErr(sealed), nil},
		{"create bad p", func() error { _, err := Create(filepath.Join(dir, "x.bloom"), 10, 2, nil); return err }(), ErrInvalidP},
		{"create existing", func() error { _, err := Create(busy, 10, 0.1, nil); return err }(), ErrExists},
		{"overwrite in use", func() error {
			_, err := Create(busy, 10, 0.1, &CreateOptions{Overwrite: true})
			return err
		}(), ErrInUse},
		{"clear in use", f.Clear(), ErrInUse},
		{"seal in use", f.Seal(), ErrInUse},
		{"remove in use", Remove(busy), ErrInUse},
		{"remove set in use", RemoveSet(openSet), ErrInUse},
		{"open set truncated layer", openSetErr(truncSet), format.ErrTruncated},
		{"open set missing layer", openSetErr(missSet), fs.ErrNotExist},
		{"open a file as a set", openSetErr(busy), ErrBadSet},
		{"seal set truncated layer", SealSet(truncSet), format.ErrTruncated},
		{"verify set truncated layer", layerErr(truncSet), format.ErrTruncated},
		{"verify set missing layer", layerErr(missSet), fs.ErrNotExist},
	} {
		if !assert.Error(t, tc.err, tc.name) {
			continue
		}
		msg := tc.err.Error()
		assert.True(t, strings.HasPrefix(msg, prefix), "%s: %q", tc.name, msg)
		assert.Equal(t, 1, strings.Count(msg, prefix), "%s: %q", tc.name, msg)
		if tc.want != nil {
			assert.ErrorIs(t, tc.err, tc.want, tc.name)
		}
	}
	err = Remove(busy)
	require.ErrorIs(t, err, ErrInUse)
	assert.Equal(t, 1, strings.Count(err.Error(), busy), "the path once: %q", err)
}

// TestWrapf: wrapf drops the wrapped error's prefix, not its chain.
func TestWrapf(t *testing.T) {
	inner := wrapf(ErrInUse, "lock %s", "f")
	err := wrapf(inner, "remove %s", "f")
	assert.Equal(t, "mmapbloom: remove f: lock f: filter file in use by another process", err.Error())
	assert.ErrorIs(t, err, ErrInUse)
	assert.Equal(t, inner, errors.Unwrap(err))
}
