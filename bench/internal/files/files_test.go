package files

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func TestStoreFiles(t *testing.T) {
	ks := keys.Generate(keys.Present, 0, 1000).Keys()
	dir := t.TempDir()
	bySize := filepath.Join(dir, "size.bloom")
	require.NoError(t, StoreOfBytes(bySize, 1<<16, ks))
	require.NoError(t, StoreOfBytes(bySize, 1<<16, ks), "must replace the file")
	st, err := os.Stat(bySize)
	require.NoError(t, err)
	assert.Equal(t, int64(format.HeaderSize+1<<16), st.Size())
	checkStore(t, bySize, ks)

	byKeys := filepath.Join(dir, "keys.bloom")
	require.NoError(t, StoreForKeys(byKeys, 1000, ks))
	checkStore(t, byKeys, ks)
}

func checkStore(t *testing.T, path string, ks [][]byte) {
	t.Helper()
	f, err := mmapbloom.Open(path, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	for _, k := range ks {
		ok, err := f.Test(k)
		require.NoError(t, err)
		require.True(t, ok)
	}
	require.NoError(t, Warm(path))
}

func TestBitsAndBloomsFiles(t *testing.T) {
	ks := keys.Generate(keys.Present, 0, 1000).Keys()
	dir := t.TempDir()
	bySize := filepath.Join(dir, "size.bab")
	require.NoError(t, BitsAndBloomsOfBytes(bySize, 1<<16, ks))
	st, err := os.Stat(bySize)
	require.NoError(t, err)
	assert.Equal(t, int64(24+1<<16), st.Size()) // m, k, the bit count, then the words
	checkBitsAndBlooms(t, bySize, ks)

	byKeys := filepath.Join(dir, "keys.bab")
	require.NoError(t, BitsAndBloomsForKeys(byKeys, 1000, ks))
	checkBitsAndBlooms(t, byKeys, ks)
}

func checkBitsAndBlooms(t *testing.T, path string, ks [][]byte) {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, file.Close()) }()
	var bf bloom.BloomFilter
	_, err = bf.ReadFrom(bufio.NewReader(file))
	require.NoError(t, err)
	for _, k := range ks {
		require.True(t, bf.Test(k))
	}
}
