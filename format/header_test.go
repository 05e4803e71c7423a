package format

import (
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func validV1() Header {
	return Header{
		Version: V1, Layout: LayoutClassic, Scheme: SchemeMurmurDoubleV1,
		K: 7, Count: 956, P: 0.01, M: 9600, N: 1000, Seed: 7, ByteSize: 1200,
	}
}

func validV2(l Layout, s Scheme) Header {
	m := uint64(1 << 20)
	return Header{
		Version: V2, Layout: l, Scheme: s,
		K: 11, Count: 42, P: 0.001, M: m, N: 50_000, Seed: 0x9e3779b97f4a7c15,
		ByteSize: ByteSize(V2, m),
	}
}

func encode(t testing.TB, h Header) []byte {
	t.Helper()
	b := make([]byte, HeaderSize)
	require.NoError(t, h.Encode(b))
	return b
}

// fixCRC recomputes the v2 header checksum after a test edits bytes, so
// that decoding reaches the checks after the checksum.
func fixCRC(b []byte) { binary.LittleEndian.PutUint32(b[offV2HeaderCRC:], HeaderCRC(b)) }

// goldenV1 and goldenV2 are the fixed field values behind
// testdata/v1.golden and testdata/v2.golden.
var (
	goldenV1 = Header{
		Version: V1, Layout: LayoutClassic, Scheme: SchemeMurmurDoubleV1,
		K: 10, Count: 123_456, P: 0.001, M: 14_377_600, N: 1_000_000,
		Seed: 0xdeadbeef, ByteSize: 14_377_600 / 8,
	}
	goldenV2 = Header{
		Version: V2, Layout: LayoutBlocked512, Scheme: SchemeXXH3Blocked,
		Flags: FlagSealed, K: 8, Count: 0x0102030405060708, P: 0.005,
		M: 1 << 33, N: 1_000_000_000, Seed: 0x1122334455667788,
		ByteSize: 1 << 30, DataCRC: 0xcafebabe,
	}
)

func TestRoundTrip(t *testing.T) {
	v2 := func(l Layout, s Scheme, mod func(*Header)) Header {
		h := validV2(l, s)
		mod(&h)
		return h
	}
	tests := []struct {
		name string
		h    Header
	}{
		{"v1 vector-like", validV1()},
		{"v1 max u32 fields", Header{
			Version: V1, Layout: LayoutClassic, Scheme: SchemeMurmurDoubleV1, K: MaxK,
			Count: math.MaxUint32, P: 0.5, M: math.MaxUint32 &^ 63, N: math.MaxUint32,
			Seed: math.MaxUint32, ByteSize: (math.MaxUint32 &^ 63) / 8,
		}},
		{"v1 k=1 m=64", Header{
			Version: V1, Layout: LayoutClassic, Scheme: SchemeMurmurDoubleV1, K: 1, M: 64, ByteSize: 8,
		}},
		{"v2 classic murmur-double", validV2(LayoutClassic, SchemeMurmurDouble)},
		{"v2 classic murmur-seeds", validV2(LayoutClassic, SchemeMurmurSeeds)},
		{"v2 classic xxh3-remix", validV2(LayoutClassic, SchemeXXH3Remix)},
		{"v2 blocked xxh3", validV2(LayoutBlocked512, SchemeXXH3Blocked)},
		{"v2 classic m=1", v2(LayoutClassic, SchemeMurmurDouble, func(h *Header) { h.M, h.ByteSize = 1, 64 })},
		{"v2 classic m=513", v2(LayoutClassic, SchemeMurmurSeeds, func(h *Header) { h.M, h.ByteSize = 513, 128 })},
		{"v2 sealed", v2(LayoutBlocked512, SchemeXXH3Blocked, func(h *Header) { h.Flags, h.DataCRC = FlagSealed, 0x01020304 })},
		{"v2 max", v2(LayoutBlocked512, SchemeXXH3Blocked, func(h *Header) {
			h.M, h.ByteSize, h.K, h.Count, h.N, h.Seed = MaxBitsV2, MaxBitsV2/8, MaxK, math.MaxUint64, math.MaxUint64, math.MaxUint64
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := encode(t, tt.h)
			got, err := Decode(b)
			require.NoError(t, err)
			assert.Equal(t, tt.h, got)
			assert.Equal(t, b, encode(t, got), "re-encoding must give the same bytes")
			// Bytes after the header are ignored.
			got2, err := Decode(append(b, 0xff, 0xff, 0xff))
			require.NoError(t, err)
			assert.Equal(t, tt.h, got2)
		})
	}
}

func TestEncodeLayout(t *testing.T) {
	le := binary.LittleEndian
	b := encode(t, goldenV1)
	assert.Equal(t, []byte("BLF\x01"), b[0:4])
	assert.Equal(t, MagicV1, le.Uint32(b[0:]))
	assert.Equal(t, uint32(goldenV1.Count), le.Uint32(b[OffCount:]))
	assert.Equal(t, make([]byte, 28), b[32:60], "v1 reserved words and file crc are zero")

	b = encode(t, goldenV2)
	assert.Equal(t, []byte("BLF\x02"), b[0:4])
	assert.Equal(t, MagicV2, le.Uint32(b[0:]))
	assert.Equal(t, goldenV2.Count, le.Uint64(b[OffCount:]))
	assert.Equal(t, HeaderCRC(b), le.Uint32(b[60:]))
	assert.Equal(t, []byte{byte(LayoutBlocked512), byte(SchemeXXH3Blocked), FlagSealed, 8}, b[4:8])
}

func TestDecodeErrors(t *testing.T) {
	le := binary.LittleEndian
	v1 := func(mod func(b []byte)) []byte {
		b := make([]byte, HeaderSize)
		require.NoError(t, validV1().Encode(b))
		mod(b)
		return b
	}
	// v2 edits b and then fixes the header crc, so the later checks run.
	v2 := func(mod func(b []byte)) []byte {
		b := make([]byte, HeaderSize)
		require.NoError(t, validV2(LayoutClassic, SchemeMurmurDouble).Encode(b))
		mod(b)
		fixCRC(b)
		return b
	}
	blocked := func(mod func(b []byte)) []byte {
		b := make([]byte, HeaderSize)
		require.NoError(t, validV2(LayoutBlocked512, SchemeXXH3Blocked).Encode(b))
		mod(b)
		fixCRC(b)
		return b
	}
	setM2 := func(m uint64) func(b []byte) {
		return func(b []byte) {
			le.PutUint64(b[offV2M:], m)
			le.PutUint64(b[offV2ByteSize:], ByteSize(V2, m))
		}
	}
	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShortHeader},
		{"63 bytes", v1(func([]byte) {})[:63], ErrShortHeader},
		{"bad magic byte 0", v1(func(b []byte) { b[0] = 'X' }), ErrBadMagic},
		{"bad magic byte 2", v2(func(b []byte) { b[2] = 'f' }), ErrBadMagic},
		{"zero file", make([]byte, HeaderSize), ErrBadMagic},
		{"version 0", v1(func(b []byte) { b[3] = 0 }), ErrUnknownVersion},
		{"version 3", v2(func(b []byte) { b[3] = 3 }), ErrUnknownVersion},
		{"version 255", v2(func(b []byte) { b[3] = 255 }), ErrUnknownVersion},
		{"v2 header crc", func() []byte {
			b := v2(func([]byte) {})
			b[60] ^= 1
			return b
		}(), ErrChecksum},
		{"v2 edited field without crc", func() []byte {
			b := v2(func([]byte) {})
			b[offV2K] = 3
			return b
		}(), ErrChecksum},
		{"crc checked before layout", func() []byte {
			b := v2(func([]byte) {})
			b[offV2Layout] = 0
			return b
		}(), ErrChecksum},
		{"layout 0", v2(func(b []byte) { b[offV2Layout] = 0 }), ErrUnknownLayout},
		{"layout 3", v2(func(b []byte) { b[offV2Layout] = 3 }), ErrUnknownLayout},
		{"layout 255", v2(func(b []byte) { b[offV2Layout] = 255 }), ErrUnknownLayout},
		{"layout checked before k", v2(func(b []byte) { b[offV2Layout], b[offV2K] = 9, 0 }), ErrUnknownLayout},
		{"scheme 0", v2(func(b []byte) { b[offV2Scheme] = 0 }), ErrUnknownScheme},
		{"scheme 6", v2(func(b []byte) { b[offV2Scheme] = 6 }), ErrUnknownScheme},
		{"scheme 255", v2(func(b []byte) { b[offV2Scheme] = 255 }), ErrUnknownScheme},
		{"v1 scheme in v2", v2(func(b []byte) { b[offV2Scheme] = byte(SchemeMurmurDoubleV1) }), ErrBadScheme},
		{"classic with xxh3", v2(func(b []byte) { b[offV2Scheme] = byte(SchemeXXH3Blocked) }), ErrBadScheme},
		{"blocked with murmur-double", blocked(func(b []byte) { b[offV2Scheme] = byte(SchemeMurmurDouble) }), ErrBadScheme},
		{"blocked with murmur-seeds", blocked(func(b []byte) { b[offV2Scheme] = byte(SchemeMurmurSeeds) }), ErrBadScheme},
		{"blocked with xxh3-remix", blocked(func(b []byte) { b[offV2Scheme] = byte(SchemeXXH3Remix) }), ErrBadScheme},
		{"flags bit 1", v2(func(b []byte) { b[offV2Flags] = 2 }), ErrUnknownFlags},
		{"flags bit 7 and sealed", v2(func(b []byte) { b[offV2Flags] = 0x81 }), ErrUnknownFlags},
		{"flags checked before k", v2(func(b []byte) { b[offV2Flags], b[offV2K] = 4, 0 }), ErrUnknownFlags},
		{"v2 k=0", v2(func(b []byte) { b[offV2K] = 0 }), ErrBadK},
		{"v2 k=65", v2(func(b []byte) { b[offV2K] = 65 }), ErrBadK},
		{"v2 k=255", v2(func(b []byte) { b[offV2K] = 255 }), ErrBadK},
		{"v1 k=0", v1(func(b []byte) { le.PutUint32(b[offV1K:], 0) }), ErrBadK},
		{"v1 k=65", v1(func(b []byte) { le.PutUint32(b[offV1K:], 65) }), ErrBadK},
		{"v1 k=2^32-1", v1(func(b []byte) { le.PutUint32(b[offV1K:], math.MaxUint32) }), ErrBadK},
		{"k checked before m", v2(func(b []byte) { b[offV2K] = 0; le.PutUint64(b[offV2M:], 0) }), ErrBadK},
		{"v2 m=0", v2(setM2(0)), ErrSizeMismatch},
		{"v2 m above MaxBitsV2", v2(setM2(MaxBitsV2 + 512)), ErrTooLarge},
		{"v2 m=2^64-1", v2(func(b []byte) { le.PutUint64(b[offV2M:], math.MaxUint64) }), ErrTooLarge},
		{"v2 byte size short", v2(func(b []byte) { le.PutUint64(b[offV2ByteSize:], ByteSize(V2, 1<<20)-1) }), ErrSizeMismatch},
		{"v2 byte size not padded", v2(func(b []byte) {
			le.PutUint64(b[offV2M:], 520)
			le.PutUint64(b[offV2ByteSize:], 65)
		}), ErrSizeMismatch},
		{"v2 byte size zero", v2(func(b []byte) { le.PutUint64(b[offV2ByteSize:], 0) }), ErrSizeMismatch},
		{"blocked m not multiple of 512", blocked(setM2(1<<20 + 64)), ErrSizeMismatch},
		{"v1 m=0", v1(func(b []byte) { le.PutUint32(b[offV1M:], 0); le.PutUint32(b[offV1ByteSize:], 0) }), ErrSizeMismatch},
		{"v1 m not multiple of 64", v1(func(b []byte) { le.PutUint32(b[offV1M:], 9608); le.PutUint32(b[offV1ByteSize:], 1201) }), ErrSizeMismatch},
		{"v1 m=2^32-1 fits 32 bits, not a multiple of 64", v1(func(b []byte) { le.PutUint32(b[offV1M:], math.MaxUint32) }), ErrSizeMismatch},
		{"v1 byte size short", v1(func(b []byte) { le.PutUint32(b[offV1ByteSize:], 1199) }), ErrSizeMismatch},
		{"v1 byte size padded like v2", v1(func(b []byte) { le.PutUint32(b[offV1ByteSize:], 1216) }), ErrSizeMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Decode(tt.b)
			require.ErrorIs(t, err, tt.want)
			assert.Equal(t, Header{}, h)
			assert.Contains(t, err.Error(), "format: ")
			for _, other := range allErrors {
				if other != tt.want {
					assert.NotErrorIs(t, err, other)
				}
			}
		})
	}
}

var allErrors = []error{
	ErrShortHeader, ErrBadMagic, ErrUnknownVersion, ErrChecksum, ErrUnknownLayout,
	ErrUnknownScheme, ErrBadScheme, ErrUnknownFlags, ErrBadK, ErrSizeMismatch,
	ErrTooLarge, ErrTruncated,
}

func TestErrorMessages(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range allErrors {
		assert.Regexp(t, `^format: `, e.Error())
		assert.False(t, seen[e.Error()], "duplicate message %q", e.Error())
		seen[e.Error()] = true
	}
	assert.Equal(t, "format: not a Bloom filter file (bad magic)", ErrBadMagic.Error())
}

func TestV1IgnoresReservedAndFileCRC(t *testing.T) {
	b := encode(t, validV1())
	for i := offV1Reserved; i < offV1ByteSize; i++ {
		b[i] = 0xa5
	}
	h, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, validV1(), h)
	assert.Zero(t, h.DataCRC)
}

// TestV2ImmutableBytesProtected changes every byte of the immutable range
// of a valid v2 header to every other value: each edit must be refused.
func TestV2ImmutableBytesProtected(t *testing.T) {
	for _, h := range []Header{validV2(LayoutClassic, SchemeMurmurDouble), goldenV2} {
		orig := encode(t, h)
		for i := 0; i < HeaderSize; i++ {
			if i >= OffCount && i < OffCount+8 {
				continue
			}
			for d := 1; d < 256; d++ {
				b := append([]byte(nil), orig...)
				b[i] ^= byte(d)
				_, err := Decode(b)
				require.Error(t, err, "byte %d xor %#x", i, d)
				switch {
				case i < 3:
					require.ErrorIs(t, err, ErrBadMagic, "byte %d", i)
				case i == offVersion && b[i] == byte(V1):
					// Now read as a v1.1 header, which has no checksum.
					// The v1.1 checks refuse it anyway (k is the upper
					// half of the u64 m, m its lower half, the byte size
					// is the v2 crc), but only because the fields do not
					// line up, so any error will do here.
				case i == offVersion:
					require.ErrorIs(t, err, ErrUnknownVersion)
				default:
					require.ErrorIs(t, err, ErrChecksum, "byte %d xor %#x", i, d)
				}
			}
		}
	}
}

// TestCountIsMutable changes the count bytes: decoding must still succeed
// and only Count may change.
func TestCountIsMutable(t *testing.T) {
	for _, h := range []Header{validV2(LayoutBlocked512, SchemeXXH3Blocked), goldenV2} {
		orig := encode(t, h)
		for i := OffCount; i < OffCount+8; i++ {
			for _, v := range []byte{0, 1, 0x7f, 0x80, 0xff} {
				b := append([]byte(nil), orig...)
				b[i] = v
				got, err := Decode(b)
				require.NoError(t, err, "byte %d = %#x", i, v)
				want := h
				want.Count = binary.LittleEndian.Uint64(b[OffCount:])
				assert.Equal(t, want, got)
			}
		}
	}
	// v1.1: count is the u32 at 8..12.
	b := encode(t, validV1())
	binary.LittleEndian.PutUint32(b[OffCount:], math.MaxUint32)
	got, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, uint64(math.MaxUint32), got.Count)
}

func TestEncodeErrors(t *testing.T) {
	mod1 := func(f func(*Header)) Header { h := validV1(); f(&h); return h }
	mod2 := func(f func(*Header)) Header { h := validV2(LayoutClassic, SchemeMurmurSeeds); f(&h); return h }
	const bigM = 4_792_529_216 // a multiple of 64 above 2^32
	tests := []struct {
		name string
		h    Header
		want error
	}{
		{"zero header", Header{}, ErrUnknownVersion},
		{"version 3", mod2(func(h *Header) { h.Version = 3 }), ErrUnknownVersion},
		{"layout 0", mod2(func(h *Header) { h.Layout = 0 }), ErrUnknownLayout},
		{"scheme 0", mod2(func(h *Header) { h.Scheme = 0 }), ErrUnknownScheme},
		{"v2 with v1 scheme", mod2(func(h *Header) { h.Scheme = SchemeMurmurDoubleV1 }), ErrBadScheme},
		{"v1 with v2 scheme", mod1(func(h *Header) { h.Scheme = SchemeMurmurDouble }), ErrBadScheme},
		{"v1 with xxh3-remix", mod1(func(h *Header) { h.Scheme = SchemeXXH3Remix }), ErrBadScheme},
		{"v1 blocked", mod1(func(h *Header) { h.Layout = LayoutBlocked512 }), ErrBadScheme},
		{"v1 sealed", mod1(func(h *Header) { h.Flags = FlagSealed }), ErrUnknownFlags},
		{"v2 flag 2", mod2(func(h *Header) { h.Flags = 2 }), ErrUnknownFlags},
		{"v2 k=0", mod2(func(h *Header) { h.K = 0 }), ErrBadK},
		{"v2 k=256 (would wrap in a byte)", mod2(func(h *Header) { h.K = 256 + 7 }), ErrBadK},
		{"v1 k=65", mod1(func(h *Header) { h.K = 65 }), ErrBadK},
		{"v2 byte size", mod2(func(h *Header) { h.ByteSize++ }), ErrSizeMismatch},
		{"v2 too large", mod2(func(h *Header) { h.M = MaxBitsV2 + 1; h.ByteSize = ByteSize(V2, h.M) }), ErrTooLarge},
		{"v1 m too large", mod1(func(h *Header) { h.M = bigM; h.ByteSize = bigM / 8 }), ErrTooLarge},
		{"v1 m=2^32", mod1(func(h *Header) { h.M = 1 << 32; h.ByteSize = 1 << 29 }), ErrTooLarge},
		{"v1 m=2^32-1", mod1(func(h *Header) { h.M = math.MaxUint32 }), ErrSizeMismatch},
		{"v1 m too large, v1 byte size unset", mod1(func(h *Header) { h.M = bigM }), ErrTooLarge},
		{"v1 seed too large", mod1(func(h *Header) { h.Seed = 1 << 32 }), ErrTooLarge},
		{"v1 n too large", mod1(func(h *Header) { h.N = 1 << 32 }), ErrTooLarge},
		{"v1 count too large", mod1(func(h *Header) { h.Count = 1 << 32 }), ErrTooLarge},
		{"v1 m not multiple of 64", mod1(func(h *Header) { h.M = 9601 }), ErrSizeMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, HeaderSize)
			for i := range dst {
				dst[i] = 0xee
			}
			err := tt.h.Encode(dst)
			require.ErrorIs(t, err, tt.want)
			assert.Equal(t, bytesOf(0xee, HeaderSize), dst, "nothing written on error")
		})
	}
	t.Run("short destination", func(t *testing.T) {
		require.ErrorIs(t, validV1().Encode(make([]byte, HeaderSize-1)), ErrShortHeader)
	})
}

func bytesOf(v byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = v
	}
	return b
}

// TestVectors decodes the interoperability vectors written by the reference
// C transcription (seed003: BaseBloomFilter v1.1 files).
func TestVectors(t *testing.T) {
	tests := []struct {
		name     string
		seed     uint64
		count    uint64
		n        uint64
		p        float64
		m        uint64
		k        uint32
		byteSize uint64
	}{
		{"urls-n10000-p0.0001-seed0", 0, 10000, 10000, 0.0001, 191744, 13, 23968},
		{"mixed-n1000-p0.01-seed7", 7, 956, 1000, 0.01, 9600, 7, 1200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(testkit.Testdata("vectors/seed003/" + tt.name + ".bin"))
			require.NoError(t, err)
			h, err := Decode(data)
			require.NoError(t, err)
			assert.Equal(t, Header{
				Version: V1, Layout: LayoutClassic, Scheme: SchemeMurmurDoubleV1,
				Seed: tt.seed, Count: tt.count, N: tt.n, P: tt.p, M: tt.m, K: tt.k,
				ByteSize: tt.byteSize,
			}, h)
			assert.Equal(t, tt.byteSize, ByteSize(V1, tt.m))
			require.NoError(t, h.CheckFileSize(int64(len(data))))
			assert.Equal(t, int64(HeaderSize)+int64(tt.byteSize), int64(len(data)))
			assert.Equal(t, data[:HeaderSize], encode(t, h), "re-encoding must reproduce the file's header")
		})
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file string
		h    Header
	}{
		{"v1.golden", goldenV1},
		{"v2.golden", goldenV2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			got := encode(t, tt.h)
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create it")
			require.Equal(t, want, got, "encoded bytes changed: the on-disk format changed")
			h, err := Decode(want)
			require.NoError(t, err)
			assert.Equal(t, tt.h, h)
		})
	}
}

func TestCheckFileSize(t *testing.T) {
	for _, h := range []Header{validV1(), validV2(LayoutClassic, SchemeMurmurDouble), goldenV2} {
		exact := int64(HeaderSize) + int64(h.ByteSize)
		assert.NoError(t, h.CheckFileSize(exact))
		assert.NoError(t, h.CheckFileSize(exact+1), "trailing bytes are allowed")
		assert.ErrorIs(t, h.CheckFileSize(exact-1), ErrTruncated)
		assert.ErrorIs(t, h.CheckFileSize(HeaderSize), ErrTruncated)
		assert.ErrorIs(t, h.CheckFileSize(0), ErrTruncated)
		assert.ErrorIs(t, h.CheckFileSize(-1), ErrTruncated)
	}
	huge := Header{ByteSize: math.MaxUint64}
	assert.ErrorIs(t, huge.CheckFileSize(math.MaxInt64), ErrTruncated)
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		v    Version
		m    uint64
		want uint64
	}{
		{V1, 64, 8}, {V1, 9600, 1200}, {V1, 191744, 23968},
		{V2, 1, 64}, {V2, 511, 64}, {V2, 512, 64}, {V2, 513, 128}, {V2, 9600, 1216},
		{V2, MaxBitsV2, MaxBitsV2 / 8}, {V2, math.MaxUint64, 1 << 61},
		{0, 512, 0}, {3, 512, 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ByteSize(tt.v, tt.m), "%v m=%d", tt.v, tt.m)
	}
}

func TestHeaderCRC(t *testing.T) {
	b := encode(t, goldenV2)
	c := HeaderCRC(b)
	b[OffCount] ^= 0xff
	assert.Equal(t, c, HeaderCRC(b), "count is not covered")
	b[60] ^= 0xff
	assert.Equal(t, c, HeaderCRC(b), "the stored crc is not covered")
	b[59] ^= 1
	assert.NotEqual(t, c, HeaderCRC(b))
	assert.Panics(t, func() { HeaderCRC(make([]byte, HeaderSize-1)) })
}

func TestSealed(t *testing.T) {
	assert.True(t, goldenV2.Sealed())
	assert.False(t, validV1().Sealed())
	assert.False(t, Header{Flags: 2}.Sealed())
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "v1.1", V1.String())
	assert.Equal(t, "v2", V2.String())
	assert.Equal(t, "Version(9)", Version(9).String())
	assert.Equal(t, "classic", LayoutClassic.String())
	assert.Equal(t, "blocked512", LayoutBlocked512.String())
	assert.Equal(t, "Layout(0)", Layout(0).String())
	assert.Equal(t, "murmur2-double-v1", SchemeMurmurDoubleV1.String())
	assert.Equal(t, "murmur2-double", SchemeMurmurDouble.String())
	assert.Equal(t, "murmur2-seeds", SchemeMurmurSeeds.String())
	assert.Equal(t, "xxh3-blocked", SchemeXXH3Blocked.String())
	assert.Equal(t, "xxh3-remix", SchemeXXH3Remix.String())
	assert.Equal(t, "Scheme(6)", Scheme(6).String())
}

// TestChecksumErrorShowsCRC32 checks that a header checksum mismatch
// prints both CRC-32Cs as 8 hex digits.
func TestChecksumErrorShowsCRC32(t *testing.T) {
	b := make([]byte, HeaderSize)
	require.NoError(t, validV2(LayoutBlocked512, SchemeXXH3Blocked).Encode(b))
	b[offV2K] ^= 1
	_, err := Decode(b)
	require.ErrorIs(t, err, ErrChecksum)
	assert.Regexp(t, `stored crc 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}$`, err.Error())
}
