package mmapbloom

// wordMask returns the mask of bit b (0..63) within a 64-bit word of the
// array. Files are little-endian (bit i is byte i/8, bit i%8), and hosts
// are little-endian (see endian_big.go), so that is 1 << b.
func wordMask(b uint64) uint64 { return 1 << (b & 63) }
