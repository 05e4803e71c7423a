//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package mmapbloom

// Filter files are little-endian and are accessed in place with native
// 64-bit atomics, so big-endian hosts are not supported: this reference to
// an undefined name stops the build there with a readable message.
var _ = mmapbloomNeedsALittleEndianHost
