// Package filecheck checks the invariants of a filter file on disk. It is
// apart from package testkit, which format's own tests import, because it
// imports format.
package filecheck

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// Check checks the invariants of the filter file at path, which
// no handle writes any more, against want, its header when it was opened:
// the file decodes and validates, its immutable header fields are
// unchanged (only Count may differ), its size is the header's, and no
// padding bit beyond m is set.
func Check(t testing.TB, path string, want format.Header) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	got, err := format.Decode(raw)
	require.NoError(t, err)
	got.Count, want.Count = 0, 0
	require.Equal(t, want, got, "immutable header fields changed")
	require.Len(t, raw, int(format.HeaderSize+got.ByteSize))
	for bit := got.M; bit < got.ByteSize*8; bit++ {
		require.Zero(t, raw[format.HeaderSize+bit/8]&(1<<(bit%8)), "padding bit %d set", bit)
	}
}
