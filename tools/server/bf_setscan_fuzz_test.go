package server

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// FuzzDecodeSetHead feeds decodeSetHead arbitrary first chunks (seeds:
// testdata/fuzz/FuzzDecodeSetHead, a real set's first chunk and cuts of
// it): it never panics nor allocates beyond the chunk, and a chunk it
// accepts encodes back to the same bytes.
func FuzzDecodeSetHead(f *testing.F) {
	head := realSetHead(f)
	for _, n := range []int{0, 8, 12, len(head) / 2, len(head) - 1, len(head)} {
		f.Add(head[:n])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := decodeSetHead(data)
		if err != nil {
			require.ErrorIs(t, err, errBadData)
			return
		}
		names, hdrs := make([]string, len(h.layers)), make([][]byte, len(h.layers))
		for i, l := range h.layers {
			names[i], hdrs[i] = l.name, l.raw
		}
		again, err := encodeSetHead(h.manifest, names, hdrs)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, again), "re-encoded")
	})
}

// realSetHead returns the first chunk of a scaling set of three layers
// made by the library.
func realSetHead(t testing.TB) []byte {
	dir := filepath.Join(t.TempDir(), "s.bfset")
	st, err := mmapbloom.CreateSet(dir, 10, 0.01, &mmapbloom.SetOptions{Expansion: 2})
	require.NoError(t, err)
	defer st.Close()
	for i := range 100 {
		require.NoError(t, st.Add([]byte{byte(i)}))
	}
	raw, files, err := st.Manifest()
	require.NoError(t, err)
	hdrs := make([][]byte, len(files))
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		hdrs[i] = b[:64]
	}
	head, err := encodeSetHead(raw, files, hdrs)
	require.NoError(t, err)
	return head
}
