package format

import "errors"

// Errors returned by Decode, Encode and Header.CheckFileSize. They are
// returned wrapped with context (the offending values); test for them with
// errors.Is.
//
// Decode checks a header in this order and reports the first failure:
// ErrShortHeader, ErrBadMagic, ErrUnknownVersion, ErrChecksum (v2 only),
// ErrUnknownLayout, ErrUnknownScheme, ErrBadScheme, ErrUnknownFlags, ErrBadK,
// then ErrTooLarge or ErrSizeMismatch.
var (
	// ErrShortHeader is returned when fewer than HeaderSize (64) bytes are
	// given to Decode, or a destination shorter than HeaderSize to Encode.
	ErrShortHeader = errors.New("format: header too short (need 64 bytes)")

	// ErrBadMagic is returned when the first three bytes are not "BLF": the
	// file is not a Bloom filter file of any version.
	ErrBadMagic = errors.New("format: not a Bloom filter file (bad magic)")

	// ErrUnknownVersion is returned when the version byte (byte 3 of the
	// magic) is neither 1 (v1.1) nor 2 (v2): the file was written by a
	// newer or foreign program.
	ErrUnknownVersion = errors.New("format: unsupported format version")

	// ErrChecksum is returned when the CRC-32C stored at offset 60 of a v2
	// header does not match its immutable bytes: the header is corrupted.
	ErrChecksum = errors.New("format: header corrupted (checksum mismatch)")

	// ErrUnknownLayout is returned when the layout id is not one of the
	// known layouts (1 classic, 2 blocked-512).
	ErrUnknownLayout = errors.New("format: unknown bit-array layout")

	// ErrUnknownScheme is returned when the hash scheme id is not one of
	// the known schemes (1..4).
	ErrUnknownScheme = errors.New("format: unknown hash scheme")

	// ErrBadScheme is returned when a known hash scheme is used with a
	// layout or version it is not defined for (for example the v1.1
	// scheme in a v2 header, or xxh3-blocked with the classic layout).
	ErrBadScheme = errors.New("format: hash scheme not valid for this layout or version")

	// ErrUnknownFlags is returned when flag bits other than FlagSealed are
	// set (v2), or any flag is set on a v1.1 header, which has no flags.
	ErrUnknownFlags = errors.New("format: unknown flag bits set")

	// ErrBadK is returned when the number of hash functions k is outside
	// 1..MaxK.
	ErrBadK = errors.New("format: number of hash functions k out of range 1..64")

	// ErrSizeMismatch is returned when the bit count m breaks the rules of
	// its version and layout (zero, not a multiple of 64 in v1.1, not a
	// multiple of 512 for blocked-512) or the stored byte size of the bit
	// array is not the size derived from m.
	ErrSizeMismatch = errors.New("format: bit-array size does not match m")

	// ErrTooLarge is returned when a value does not fit the format: m above
	// MaxBitsV2 in v2, or m, seed, n or count at or above 2^32 in v1.1.
	ErrTooLarge = errors.New("format: value too large for this format version")

	// ErrTruncated is returned by Header.CheckFileSize when the file is
	// shorter than the header plus the bit array it announces.
	ErrTruncated = errors.New("format: file truncated (shorter than header plus bit array)")
)
