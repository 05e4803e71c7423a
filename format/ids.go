package format

import "strconv"

// Version is the format version stored in byte 3 of the magic.
type Version uint8

// Known format versions.
const (
	// V1 is the BaseBloomFilter v1.1 format of the reference code the project
	// started from (magic "BLF\x01").
	V1 Version = 1
	// V2 is this project's format (magic "BLF\x02").
	V2 Version = 2
)

// String returns "v1.1" or "v2", or "Version(N)" for an unknown value.
func (v Version) String() string {
	switch v {
	case V1:
		return "v1.1"
	case V2:
		return "v2"
	}
	return "Version(" + strconv.Itoa(int(v)) + ")"
}

// Layout says how the bit array is organised (v2 byte 4). A v1.1 file is
// always LayoutClassic.
type Layout uint8

// Known layouts.
const (
	// LayoutClassic is one flat array of m bits; a key's k probes may land
	// anywhere in it.
	LayoutClassic Layout = 1
	// LayoutBlocked512 splits the array into 512-bit (64-byte) blocks; all
	// probes of a key fall in one block. m must be a multiple of 512.
	LayoutBlocked512 Layout = 2
)

// String returns "classic" or "blocked512", or "Layout(N)" for an unknown
// value.
func (l Layout) String() string {
	switch l {
	case LayoutClassic:
		return "classic"
	case LayoutBlocked512:
		return "blocked512"
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

func (l Layout) known() bool { return l == LayoutClassic || l == LayoutBlocked512 }

// Scheme identifies how a key is turned into bit positions (v2 byte 5). A
// v1.1 file is always SchemeMurmurDoubleV1.
type Scheme uint8

// Known hash schemes.
const (
	// SchemeMurmurDoubleV1 is the v1.1 reference code's exact double
	// MurmurHash64A (h1 + i*h2 mod m). Valid only in v1.1 files.
	SchemeMurmurDoubleV1 Scheme = 1
	// SchemeMurmurDouble is double MurmurHash64A made safe against a zero
	// step. Classic layout only.
	SchemeMurmurDouble Scheme = 2
	// SchemeMurmurSeeds is k independently seeded MurmurHash64A, the
	// seeds drawn from an LCG (FORMAT.md, "murmur2-seeds"). Classic layout
	// only.
	SchemeMurmurSeeds Scheme = 3
	// SchemeXXH3Blocked is xxh3-64 for the blocked-512 layout. Blocked-512
	// layout only.
	SchemeXXH3Blocked Scheme = 4
	// SchemeXXH3Remix is xxh3-128 with each of the k positions remixed
	// (murmur3's fmix64) and reduced by multiply-shift, so that positions
	// behave like independent hashes for every m. Classic layout only; the
	// default for new classic v2 files. See FORMAT.md.
	SchemeXXH3Remix Scheme = 5
)

// String returns "murmur2-double-v1", "murmur2-double", "murmur2-seeds",
// "xxh3-blocked" or "xxh3-remix", or "Scheme(N)" for an unknown value.
func (s Scheme) String() string {
	switch s {
	case SchemeMurmurDoubleV1:
		return "murmur2-double-v1"
	case SchemeMurmurDouble:
		return "murmur2-double"
	case SchemeMurmurSeeds:
		return "murmur2-seeds"
	case SchemeXXH3Blocked:
		return "xxh3-blocked"
	case SchemeXXH3Remix:
		return "xxh3-remix"
	}
	return "Scheme(" + strconv.Itoa(int(s)) + ")"
}

func (s Scheme) known() bool { return s >= SchemeMurmurDoubleV1 && s <= SchemeXXH3Remix }

// validFor reports whether scheme s may be used with layout l in version v.
func (s Scheme) validFor(v Version, l Layout) bool {
	if v == V1 {
		return l == LayoutClassic && s == SchemeMurmurDoubleV1
	}
	switch l {
	case LayoutClassic:
		return s == SchemeMurmurDouble || s == SchemeMurmurSeeds || s == SchemeXXH3Remix
	case LayoutBlocked512:
		return s == SchemeXXH3Blocked
	}
	return false
}
