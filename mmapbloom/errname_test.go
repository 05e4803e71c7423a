package mmapbloom

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// TestErrorsNameTheFile: the exclusive operations on a handle from Create
// name the file the caller gave, never the temporary file Create built it
// under, when another handle has it open.
func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r3.bloom")
	f, err := Create(path, 1000, 0.01, nil)
	require.NoError(t, err)
	defer f.Close()
	other, err := Open(path, &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer other.Close()
	like, err := CreateLike(filepath.Join(dir, "like.bloom"), f.Header(), nil)
	require.NoError(t, err)
	defer like.Close()
	requireNamed := func(name string, err error) {
		require.ErrorIs(t, err, ErrInUse, name)
		require.Contains(t, err.Error(), path, name)
		require.NotContains(t, err.Error(), ".tmp", name)
	}
	requireNamed("Clear", f.Clear())
	requireNamed("Seal", f.Seal())
	requireNamed("Merge", f.Merge(like))
	require.NoError(t, other.Close())
	require.NoError(t, f.Seal())
	other, err = Open(path, &OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	requireNamed("Unseal", f.Unseal())
	require.NoError(t, other.Close())
}

// TestMergeMismatchSaysWhich: a merge refused for m says which m is the
// source's and which the destination's.
func TestMergeMismatchSaysWhich(t *testing.T) {
	dir := t.TempDir()
	dst, err := CreateWithMK(filepath.Join(dir, "dst.bloom"), 1024, 4, withSeed(nil, 1))
	require.NoError(t, err)
	defer dst.Close()
	src, err := CreateWithMK(filepath.Join(dir, "src.bloom"), 2048, 4, withSeed(nil, 1))
	require.NoError(t, err)
	defer src.Close()
	err = dst.Merge(src)
	require.ErrorIs(t, err, ErrMismatch)
	require.Contains(t, err.Error(), "m differs: source 2048, destination 1024")
}

// TestBadMagicMessage: a foreign file's error shows its first bytes as
// text, not a zero-padded number.
func TestBadMagicMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "elf")
	require.NoError(t, os.WriteFile(path, append([]byte("\x7fELF"), make([]byte, 100)...), 0o644))
	_, err := Open(path, nil)
	require.ErrorIs(t, err, format.ErrBadMagic)
	require.Contains(t, err.Error(), path+`: format: not a Bloom filter file (bad magic): first bytes "\x7fELF", want "BLF"`)
}

// TestTooLargeNamesTheFile: a filter whose file does not fit the address
// space (a 2 GiB array on a 32-bit platform) is refused with ErrTooLarge
// naming the file; a 64-bit platform maps it.
func TestTooLargeNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.bloom")
	h := format.Header{Version: format.V2, Layout: format.LayoutClassic, Scheme: format.SchemeXXH3Remix,
		K: 3, M: 1 << 34, ByteSize: format.ByteSize(format.V2, 1<<34)}
	var buf [format.HeaderSize]byte
	require.NoError(t, h.Encode(buf[:]))
	require.NoError(t, os.WriteFile(path, buf[:], 0o644))
	require.NoError(t, os.Truncate(path, int64(format.HeaderSize+h.ByteSize))) // sparse
	f, err := Open(path, &OpenOptions{ReadOnly: true})
	if math.MaxInt == math.MaxInt32 {
		require.ErrorIs(t, err, ErrTooLarge)
		require.Contains(t, err.Error(), path)
		return
	}
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
