package mmapbloom

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// patchFile overwrites the bytes of path at off with b, through a
// descriptor of its own (the page cache is shared with any mapping).
func patchFile(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	file, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer file.Close()
	_, err = file.WriteAt(b, off)
	require.NoError(t, err)
}

// requireInUse requires err to be ErrInUse with a message saying so.
func requireInUse(t *testing.T, err error, what string) {
	t.Helper()
	require.ErrorIs(t, err, ErrInUse, what)
	require.Contains(t, err.Error(), "in use", what)
}

// answers returns Test's answers for keys.
func answers(t *testing.T, f *Filter, keys [][]byte) []bool {
	t.Helper()
	out := make([]bool, len(keys))
	require.NoError(t, f.TestBatch(keys, out))
	return out
}

// requireSameAnswers requires got to equal want, naming the first key
// that differs.
func requireSameAnswers(t *testing.T, want, got []bool, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		if want[i] != got[i] {
			require.Failf(t, "answers differ", "key %d: want %v, got %v: %s", i, want[i], got[i], fmt.Sprintf(msg, args...))
		}
	}
}

// TestHeaderCorruptionDetected flips every byte of a v2 header, with each
// single-bit mask and with 0xFF, in an unsealed and a sealed file, and
// requires Open to report it: format.ErrChecksum for every immutable
// field after the magic (format.ErrBadMagic or format.ErrUnknownVersion
// for the magic, checked first). The count, bytes 8..16, is mutable and
// not covered: the file opens with the same answers. v1.1 headers carry
// no checksum (FORMAT.md).
func TestHeaderCorruptionDetected(t *testing.T) {
	keys := append(testkit.WriterKeys(0, 0, 500), testkit.WriterKeys(1, 0, 500)...)
	for _, opts := range testLayouts {
		for _, sealed := range []bool{false, true} {
			name := layoutName(opts) + "/unsealed"
			if sealed {
				name = layoutName(opts) + "/sealed"
			}
			t.Run(name, func(t *testing.T) {
				if isV1(opts) {
					t.Skip("v1.1 headers have no checksum (FORMAT.md)")
				}
				f := newTestFilter(t, 1000, 0.01, opts)
				require.NoError(t, f.AddBatch(testkit.WriterKeys(0, 0, 500)))
				if sealed {
					require.NoError(t, f.Seal())
				}
				want := answers(t, f, keys)
				path := f.Path()
				orig, err := os.ReadFile(path)
				require.NoError(t, err)
				for off := range format.HeaderSize {
					for _, mask := range []byte{1, 2, 4, 8, 16, 32, 64, 128, 0xFF} {
						patchFile(t, path, int64(off), []byte{orig[off] ^ mask})
						g, err := Open(path, &OpenOptions{ReadOnly: true})
						switch {
						case off < 3:
							require.ErrorIs(t, err, format.ErrBadMagic, "byte %d ^ %#x", off, mask)
						case off == 3:
							require.ErrorIs(t, err, format.ErrUnknownVersion, "byte %d ^ %#x", off, mask)
						case off >= format.OffCount && off < format.OffCount+8:
							require.NoError(t, err, "count byte %d ^ %#x", off, mask)
							requireSameAnswers(t, want, answers(t, g, keys), "count byte %d ^ %#x", off, mask)
							require.NoError(t, g.Close())
						default:
							require.ErrorIs(t, err, format.ErrChecksum, "byte %d ^ %#x", off, mask)
						}
					}
					patchFile(t, path, int64(off), orig[off:off+1])
				}
				// f's mapping saw every flip; the header is whole again.
				requireSameAnswers(t, want, answers(t, f, keys), "after the flips")
				if sealed {
					require.NoError(t, f.Verify())
					require.NoError(t, f.Unseal())
				}
			})
		}
	}
}

// TestSealVerify seals a filter, checks the header on disk, that writing
// calls fail with ErrSealed while Test answers, that flipping any bit of
// the array (padding included) makes Verify fail with ErrDataChecksum,
// that the seal survives a reopen, and that Unseal gives back the header
// of before Seal (apart from the count) and a writable filter.
func TestSealVerify(t *testing.T) {
	for _, opts := range testLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			f := newTestFilter(t, 1000, 0.01, opts)
			require.NoError(t, f.AddBatch(testkit.WriterKeys(0, 0, 1000)))
			key := absentKey(t, f.Test)
			path := f.Path()
			if isV1(opts) {
				before, err := os.ReadFile(path)
				require.NoError(t, err)
				err = f.Seal()
				require.ErrorIs(t, err, errors.ErrUnsupported)
				require.Contains(t, err.Error(), "v1.1")
				require.ErrorIs(t, f.Verify(), ErrNotSealed)
				require.NoError(t, f.Unseal())
				after, err := os.ReadFile(path)
				require.NoError(t, err)
				require.Equal(t, before, after)
				require.NoError(t, f.Add([]byte("still writable")))
				return
			}
			require.ErrorIs(t, f.Verify(), ErrNotSealed)
			unsealed, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, f.Seal())
			require.ErrorIs(t, f.Seal(), ErrSealed, "sealing twice")

			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			hdr, err := format.Decode(raw)
			require.NoError(t, err)
			require.True(t, hdr.Sealed())
			require.Equal(t, crc32.Checksum(raw[format.HeaderSize:], crc32.MakeTable(crc32.Castagnoli)), hdr.DataCRC)
			require.True(t, f.Header().Sealed())
			require.Equal(t, hdr.DataCRC, f.Header().DataCRC)
			require.NoError(t, f.Verify())

			for name, call := range map[string]func() error{
				"Add":             func() error { return f.Add(key) },
				"AddString":       func() error { return f.AddString(string(key)) },
				"AddBatch":        func() error { return f.AddBatch([][]byte{key}) },
				"TestAndAdd":      func() error { _, err := f.TestAndAdd(key); return err },
				"TestAndAddBatch": func() error { return f.TestAndAddBatch([][]byte{key}, make([]bool, 1)) },
				"Clear":           f.Clear,
			} {
				require.ErrorIs(t, call(), ErrSealed, name)
			}
			testkit.RequireAllPresent(t, f, 0, 0, 1000)
			ok, err := f.Test(key)
			require.NoError(t, err)
			require.False(t, ok)

			// Every bit of the array, padding included.
			array := raw[format.HeaderSize:]
			for i := range array {
				for b := range 8 {
					patchFile(t, path, int64(format.HeaderSize+i), []byte{array[i] ^ 1<<b})
					require.ErrorIs(t, f.Verify(), ErrDataChecksum, "bit %d of byte %d", b, i)
				}
				patchFile(t, path, int64(format.HeaderSize+i), array[i:i+1])
			}
			require.NoError(t, f.Verify())
			t.Logf("%d bits flipped one at a time, each detected", len(array)*8)

			// A garbage count is not covered and does not matter.
			patchFile(t, path, format.OffCount, bytes.Repeat([]byte{0xA5}, 8))
			require.NoError(t, f.Verify())

			require.NoError(t, f.Close())
			g, err := Open(path, &OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			require.True(t, g.Header().Sealed())
			require.NoError(t, g.Verify())
			testkit.RequireAllPresent(t, g, 0, 0, 1000)
			require.NoError(t, g.Close())

			g, err = Open(path, nil)
			require.NoError(t, err)
			defer g.Close() // f's cleanup then checks the header is f's again
			require.ErrorIs(t, g.Add(key), ErrSealed)
			require.NoError(t, g.Unseal())
			require.NoError(t, g.Unseal(), "unsealing twice")
			require.ErrorIs(t, g.Verify(), ErrNotSealed)
			require.False(t, g.Header().Sealed())
			now, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, unsealed[:format.OffCount], now[:format.OffCount])
			require.Equal(t, unsealed[format.OffCount+8:], now[format.OffCount+8:], "header after the count and the array")
			require.NoError(t, g.Add(key))
			ok, err = g.Test(key)
			require.NoError(t, err)
			require.True(t, ok)
		})
	}
}

// TestSealAfterAddsInOtherHandle checks that Seal leaves the sealed header on disk
// consistent with the bits: a second handle opened after Seal (a fresh
// read of the file) sees the seal and verifies.
func TestSealAfterAddsInOtherHandle(t *testing.T) {
	for _, opts := range testLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			if isV1(opts) {
				t.Skip("v1.1 files cannot be sealed")
			}
			f := newTestFilter(t, 10_000, 0.01, opts)
			path := f.Path()
			g, err := Open(path, nil)
			require.NoError(t, err)
			require.NoError(t, g.AddBatch(testkit.WriterKeys(2, 0, 5000)))
			requireInUse(t, f.Seal(), "seal while g is open")
			require.NoError(t, g.Close())
			require.NoError(t, f.Seal())
			h, err := Open(path, &OpenOptions{ReadOnly: true})
			require.NoError(t, err)
			require.NoError(t, h.Verify())
			testkit.RequireAllPresent(t, h, 2, 0, 5000)
			require.NoError(t, h.Close())
			require.NoError(t, f.Unseal())
		})
	}
}

// TestGarbageCount overwrites the count with garbage and requires the
// file to open (the count is outside the header checksum), every answer
// to stay the same, Count to show the garbage, and adds to go on.
func TestGarbageCount(t *testing.T) {
	keys := append(testkit.WriterKeys(0, 0, 2000), testkit.WriterKeys(1, 0, 20_000)...)
	for _, opts := range testLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			f := newTestFilter(t, 2000, 0.01, opts)
			require.NoError(t, f.AddBatch(testkit.WriterKeys(0, 0, 2000)))
			want := answers(t, f, keys)
			path := f.Path()
			size := 8
			if isV1(opts) {
				size = 4
			}
			for _, garbage := range [][]byte{
				bytes.Repeat([]byte{0xFF}, 8),
				{0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x23, 0x45, 0x67},
				make([]byte, 8),
			} {
				patchFile(t, path, format.OffCount, garbage[:size])
				g, err := Open(path, nil)
				require.NoError(t, err)
				requireSameAnswers(t, want, answers(t, g, keys), "reopened")
				requireSameAnswers(t, want, answers(t, f, keys), "the first handle")
				var c [8]byte
				copy(c[:], garbage[:size])
				count, err := g.Count()
				require.NoError(t, err)
				require.Equal(t, binary.LittleEndian.Uint64(c[:]), count)
				require.NoError(t, g.Add([]byte("after garbage")))
				require.NoError(t, g.Close())
				want = answers(t, f, keys)
			}
		})
	}
}

// TestRandomSeed checks that filters get a random seed unless one is
// fixed, and that a fixed seed gives byte-identical files after the same
// adds.
func TestRandomSeed(t *testing.T) {
	for _, opts := range testLayouts {
		t.Run(layoutName(opts), func(t *testing.T) {
			a := newTestFilter(t, 1000, 0.01, opts)
			b := newTestFilter(t, 1000, 0.01, opts)
			require.NotEqual(t, a.Header().Seed, b.Header().Seed, "two filters got the same random seed")

			c := newTestFilter(t, 1000, 0.01, withSeed(opts, 12345))
			d := newTestFilter(t, 1000, 0.01, withSeed(opts, 12345))
			require.Equal(t, uint64(12345), c.Header().Seed)
			for _, f := range []*Filter{a, b, c, d} {
				require.NoError(t, f.AddBatch(testkit.WriterKeys(0, 0, 1000)))
				require.NoError(t, f.Sync())
			}
			read := func(f *Filter) []byte {
				raw, err := os.ReadFile(f.Path())
				require.NoError(t, err)
				return raw
			}
			require.Equal(t, read(c), read(d), "same seed, same adds, different files")
			require.NotEqual(t, read(a)[format.HeaderSize:], read(b)[format.HeaderSize:], "different seeds, same bits")
		})
	}
}
