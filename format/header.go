// Package format encodes and decodes the 64-byte header of a Bloom filter
// file and checks it. Two versions exist: v1.1, the
// BaseBloomFilter format of the reference code the project started from, and v2, this project's format with layout and
// hash-scheme ids, a sealed flag, a data checksum and a header checksum.
//
// All integers are little-endian and every field sits at a fixed offset;
// the bit array follows the header at byte HeaderSize. FORMAT.md in this
// directory is the full specification.
package format

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// HeaderSize is the size of the header in bytes, in both versions. The bit
// array starts at this offset.
const HeaderSize = 64

// Magic numbers, read as little-endian uint32 at offset 0. The first three
// bytes are "BLF"; the fourth is the version.
const (
	// MagicV1 is the magic of a v1.1 file (bytes "BLF\x01").
	MagicV1 uint32 = 0x01464C42
	// MagicV2 is the magic of a v2 file (bytes "BLF\x02").
	MagicV2 uint32 = 0x02464C42
	// MaxK is the largest number of hash functions (probes per key).
	MaxK = 64
	// MaxBitsV2 is the largest bit count m a v2 header may carry
	// (2^50 bits, 128 TiB of bit array).
	MaxBitsV2 = 1 << 50
)

// OffCount is the byte offset of the item count, the one field that
// changes while a filter is in use. It is a uint32 in v1.1 and a uint64 in
// v2, and is not covered by the v2 header checksum.
const OffCount = 8

// FlagSealed is the v2 flag bit saying the bit array is frozen and its
// CRC-32C is stored in Header.DataCRC.
const FlagSealed uint8 = 1

// Field offsets. Shared by both versions: magic, count, p.
const (
	offMagic   = 0
	offVersion = 3 // the fourth byte of the magic
	offP       = 16

	// v1.1
	offV1Seed     = 4
	offV1N        = 12
	offV1M        = 24
	offV1K        = 28
	offV1Reserved = 32 // 6 x u32, written zero, ignored on read
	offV1FileCRC  = 56 // written zero, ignored on read
	offV1ByteSize = 60

	// v2
	offV2Layout    = 4
	offV2Scheme    = 5
	offV2Flags     = 6
	offV2K         = 7
	offV2M         = 24
	offV2N         = 32
	offV2Seed      = 40
	offV2ByteSize  = 48
	offV2DataCRC   = 56
	offV2HeaderCRC = 60
)

// castagnoli is the CRC-32C table used for the header and data checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is the decoded header of a filter file, for either version.
//
// For a v1.1 header, Layout is always LayoutClassic, Scheme is
// SchemeMurmurDoubleV1, Flags and DataCRC are zero, and Seed, Count, N and
// M must fit in 32 bits.
type Header struct {
	// Version is the format version (V1 or V2).
	Version Version
	// Layout is the bit-array layout.
	Layout Layout
	// Scheme is the hash scheme mapping keys to bit positions.
	Scheme Scheme
	// Flags holds flag bits; only FlagSealed is defined (v2 only).
	Flags uint8
	// K is the number of hash functions (bit probes per key), 1..MaxK.
	K uint32
	// Count is the number of Add calls made so far (items added).
	Count uint64
	// P is the target false-positive probability the filter was sized
	// for, a fraction in (0, 1). It is informational and not validated.
	P float64
	// M is the number of bits in the filter.
	M uint64
	// N is the planned capacity in items. It is informational and not
	// validated.
	N uint64
	// Seed is the hash seed.
	Seed uint64
	// ByteSize is the length of the bit array in bytes: M/8 in v1.1,
	// ceil(M/512)*64 in v2 (see ByteSize).
	ByteSize uint64
	// DataCRC is the CRC-32C (Castagnoli) of the bit array when the
	// filter is sealed, else zero. v1.1 files have no such field: Decode
	// sets it to zero and Encode ignores it.
	DataCRC uint32
}

// Sealed reports whether FlagSealed is set.
func (h Header) Sealed() bool { return h.Flags&FlagSealed != 0 }

// ByteSize returns the size in bytes of the bit array holding m bits in
// version v: m/8 for V1 (m is a multiple of 64 there), and ceil(m/512)*64
// for V2 (padded to a whole 64-byte line). It returns 0 for an unknown
// version.
func ByteSize(v Version, m uint64) uint64 {
	switch v {
	case V1:
		return m / 8
	case V2:
		lines := m / 512
		if m%512 != 0 {
			lines++
		}
		return lines * 64
	}
	return 0
}

// HeaderCRC returns the CRC-32C (Castagnoli) of the immutable bytes of a v2
// header, bytes 0..8 followed by bytes 16..60: everything except the count
// and the checksum itself. b must hold at least HeaderSize bytes; HeaderCRC
// panics otherwise.
func HeaderCRC(b []byte) uint32 {
	_ = b[HeaderSize-1]
	c := crc32.Update(0, castagnoli, b[0:OffCount])
	return crc32.Update(c, castagnoli, b[OffCount+8:offV2HeaderCRC])
}

// Decode parses and validates the first HeaderSize bytes of b. Bytes after
// the header are not looked at.
//
// Errors, in the order checked (each wrapped with context, test with
// errors.Is): ErrShortHeader if len(b) < HeaderSize; ErrBadMagic if b does
// not start with "BLF"; ErrUnknownVersion if the version byte is not 1 or
// 2; for v2 ErrChecksum if the header checksum does not match; then
// ErrUnknownLayout, ErrUnknownScheme, ErrBadScheme, ErrUnknownFlags,
// ErrBadK, ErrTooLarge and ErrSizeMismatch.
func Decode(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("%w: got %d bytes", ErrShortHeader, len(b))
	}
	b = b[:HeaderSize]
	if b[0] != 'B' || b[1] != 'L' || b[2] != 'F' {
		return Header{}, fmt.Errorf("%w: first bytes %q, want \"BLF\"", ErrBadMagic, b[:4])
	}
	le := binary.LittleEndian
	var h Header
	switch Version(b[offVersion]) {
	case V1:
		h = Header{
			Version:  V1,
			Layout:   LayoutClassic,
			Scheme:   SchemeMurmurDoubleV1,
			Seed:     uint64(le.Uint32(b[offV1Seed:])),
			Count:    uint64(le.Uint32(b[OffCount:])),
			N:        uint64(le.Uint32(b[offV1N:])),
			P:        math.Float64frombits(le.Uint64(b[offP:])),
			M:        uint64(le.Uint32(b[offV1M:])),
			K:        le.Uint32(b[offV1K:]),
			ByteSize: uint64(le.Uint32(b[offV1ByteSize:])),
		}
	case V2:
		if stored, got := le.Uint32(b[offV2HeaderCRC:]), HeaderCRC(b); stored != got {
			return Header{}, fmt.Errorf("%w: stored crc 0x%08x, computed 0x%08x", ErrChecksum, stored, got)
		}
		h = Header{
			Version:  V2,
			Layout:   Layout(b[offV2Layout]),
			Scheme:   Scheme(b[offV2Scheme]),
			Flags:    b[offV2Flags],
			K:        uint32(b[offV2K]),
			Count:    le.Uint64(b[OffCount:]),
			P:        math.Float64frombits(le.Uint64(b[offP:])),
			M:        le.Uint64(b[offV2M:]),
			N:        le.Uint64(b[offV2N:]),
			Seed:     le.Uint64(b[offV2Seed:]),
			ByteSize: le.Uint64(b[offV2ByteSize:]),
			DataCRC:  le.Uint32(b[offV2DataCRC:]),
		}
	default:
		return Header{}, fmt.Errorf("%w: version byte %d (this program reads 1 and 2)", ErrUnknownVersion, b[offVersion])
	}
	if err := h.validate(); err != nil {
		return Header{}, err
	}
	return h, nil
}

// Encode validates h and writes it as HeaderSize bytes to dst[:HeaderSize].
// For v2 it computes and stores the header checksum; for v1.1 it writes the
// reserved words and the file crc as zero. Nothing is written on error.
//
// Errors: ErrShortHeader if len(dst) < HeaderSize; the errors of Decode
// for invalid field values (ErrUnknownVersion, ErrUnknownLayout,
// ErrUnknownScheme, ErrBadScheme, ErrUnknownFlags, ErrBadK, ErrTooLarge,
// ErrSizeMismatch); and, for v1.1, ErrTooLarge if Seed, N or Count does
// not fit in a uint32.
func (h Header) Encode(dst []byte) error {
	if len(dst) < HeaderSize {
		return fmt.Errorf("%w: destination holds %d bytes", ErrShortHeader, len(dst))
	}
	if err := h.validate(); err != nil {
		return err
	}
	if h.Version == V1 {
		for _, f := range []struct {
			name string
			v    uint64
		}{{"seed", h.Seed}, {"n", h.N}, {"count", h.Count}} {
			if f.v > math.MaxUint32 {
				return fmt.Errorf("%w: v1.1 %s=%d does not fit in 32 bits", ErrTooLarge, f.name, f.v)
			}
		}
	}

	b := dst[:HeaderSize]
	clear(b)
	le := binary.LittleEndian
	le.PutUint64(b[offP:], math.Float64bits(h.P))
	switch h.Version {
	case V1:
		le.PutUint32(b[offMagic:], MagicV1)
		le.PutUint32(b[offV1Seed:], uint32(h.Seed))
		le.PutUint32(b[OffCount:], uint32(h.Count))
		le.PutUint32(b[offV1N:], uint32(h.N))
		le.PutUint32(b[offV1M:], uint32(h.M))
		le.PutUint32(b[offV1K:], h.K)
		// offV1Reserved..offV1FileCRC+4 stay zero.
		le.PutUint32(b[offV1ByteSize:], uint32(h.ByteSize))
	case V2:
		le.PutUint32(b[offMagic:], MagicV2)
		b[offV2Layout] = uint8(h.Layout)
		b[offV2Scheme] = uint8(h.Scheme)
		b[offV2Flags] = h.Flags
		b[offV2K] = uint8(h.K)
		le.PutUint64(b[OffCount:], h.Count)
		le.PutUint64(b[offV2M:], h.M)
		le.PutUint64(b[offV2N:], h.N)
		le.PutUint64(b[offV2Seed:], h.Seed)
		le.PutUint64(b[offV2ByteSize:], h.ByteSize)
		le.PutUint32(b[offV2DataCRC:], h.DataCRC)
		le.PutUint32(b[offV2HeaderCRC:], HeaderCRC(b))
	}
	return nil
}

// CheckFileSize checks that a file of size bytes is long enough to hold
// the header and the bit array h announces (HeaderSize + h.ByteSize bytes).
// Extra trailing bytes are allowed. It returns ErrTruncated (wrapped) if
// the file is shorter.
func (h Header) CheckFileSize(size int64) error {
	if size < HeaderSize || uint64(size)-HeaderSize < h.ByteSize {
		return fmt.Errorf("%w: file is %d bytes, header and bit array need %d + %d",
			ErrTruncated, size, HeaderSize, h.ByteSize)
	}
	return nil
}

// validate applies checks 5..7 of the decode order (layout, scheme, flags,
// k, sizes) to h. The version must already be known to Decode; Encode
// relies on this function to reject an unknown one.
func (h Header) validate() error {
	if h.Version != V1 && h.Version != V2 {
		return fmt.Errorf("%w: %v", ErrUnknownVersion, h.Version)
	}
	if !h.Layout.known() {
		return fmt.Errorf("%w: layout id %d", ErrUnknownLayout, uint8(h.Layout))
	}
	if !h.Scheme.known() {
		return fmt.Errorf("%w: scheme id %d", ErrUnknownScheme, uint8(h.Scheme))
	}
	if !h.Scheme.validFor(h.Version, h.Layout) {
		return fmt.Errorf("%w: scheme %v with layout %v in %v", ErrBadScheme, h.Scheme, h.Layout, h.Version)
	}
	if h.Version == V1 && h.Flags != 0 {
		return fmt.Errorf("%w: flags %#x, but v1.1 has no flags", ErrUnknownFlags, h.Flags)
	}
	if h.Flags&^FlagSealed != 0 {
		return fmt.Errorf("%w: flags %#x", ErrUnknownFlags, h.Flags)
	}
	if h.K < 1 || h.K > MaxK {
		return fmt.Errorf("%w: k=%d", ErrBadK, h.K)
	}
	if h.M == 0 {
		return fmt.Errorf("%w: m=0, a filter needs at least one bit", ErrSizeMismatch)
	}
	switch h.Version {
	case V1:
		if h.M > math.MaxUint32 {
			return fmt.Errorf("%w: v1.1 m=%d does not fit in 32 bits", ErrTooLarge, h.M)
		}
		if h.M%64 != 0 {
			return fmt.Errorf("%w: v1.1 m=%d is not a multiple of 64", ErrSizeMismatch, h.M)
		}
	case V2:
		if h.M > MaxBitsV2 {
			return fmt.Errorf("%w: m=%d exceeds the v2 limit of %d bits", ErrTooLarge, h.M, uint64(MaxBitsV2))
		}
		if h.Layout == LayoutBlocked512 && h.M%512 != 0 {
			return fmt.Errorf("%w: blocked512 m=%d is not a multiple of 512", ErrSizeMismatch, h.M)
		}
	}
	if want := ByteSize(h.Version, h.M); h.ByteSize != want {
		return fmt.Errorf("%w: m=%d needs byte size %d, header says %d", ErrSizeMismatch, h.M, want, h.ByteSize)
	}
	return nil
}
