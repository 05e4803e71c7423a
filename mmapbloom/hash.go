package mmapbloom

import "github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"

// DocumentSeed is the first LCG seed of the murmur2-seeds scheme's C
// reference filter (x(0) = 314159265, x(i+1) = 1664525 x(i) + 1013904223
// in uint32 arithmetic); give it as the seed of a SchemeMurmurSeeds filter
// to reproduce that filter's bit offsets.
const DocumentSeed = hashing.LCGSeed

// MurmurHash64A returns Austin Appleby's 64-bit MurmurHash2 (MurmurHash64A)
// of key with the given seed, reading 8-byte blocks little-endian, as the
// v1.1 format and the murmur2-seeds scheme of format/FORMAT.md use it. The
// result is the same on every platform.
func MurmurHash64A(key []byte, seed uint64) uint64 { return hashing.MurmurHash64A(key, seed) }
