package keys

import "strconv"

// Family names a family of generated keys. Keys of different families never
// coincide: the family letter stands in a fixed place of the host name.
type Family byte

// The two families of the benchmarks: keys added to the filters, and keys
// never added (every hit among them is a false positive).
const (
	Present Family = 'p'
	Absent  Family = 'a'
)

// AppendURL appends key i of family f to dst and returns the result: a
// URL-like key of about 60 bytes, such as
// https://h1234.example-p.com/a/5ad1e2c9b0f4c71e?id=31415926.
// The same f and i always give the same key.
func AppendURL(dst []byte, f Family, i uint64) []byte {
	dst = append(dst, "https://h"...)
	dst = strconv.AppendUint(dst, i%9973, 10)
	dst = append(dst, ".example-"...)
	dst = append(dst, byte(f))
	dst = append(dst, ".com/a/"...)
	dst = appendHex64(dst, splitmix64(i^uint64(f)<<56))
	dst = append(dst, "?id="...)
	return strconv.AppendUint(dst, i, 10)
}

// Generate returns the keys [from, to) of family f in one buffer.
func Generate(f Family, from, to uint64) *Set {
	n := int(to - from)
	size := 0
	for i := from; i < to; i++ {
		size += urlLen(i)
	}
	data := make([]byte, 0, size)
	ends := make([]int, n)
	for j := range n {
		data = AppendURL(data, f, from+uint64(j))
		ends[j] = len(data)
	}
	return newSet(data, ends)
}

// urlLen returns the length of key i of any family: 46 fixed bytes and
// the digits of i%9973 and of i.
func urlLen(i uint64) int {
	return 46 + digits(i%9973) + digits(i)
}

// digits returns the number of decimal digits of x.
func digits(x uint64) int {
	d := 1
	for ; x >= 10; x /= 10 {
		d++
	}
	return d
}

// appendHex64 appends x as 16 lower-case hex digits.
func appendHex64(dst []byte, x uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, digits[x>>uint(shift)&0xf])
	}
	return dst
}

// splitmix64 is the finaliser of Steele, Lea and Flood's SplitMix64: it
// spreads i over 64 bits so that the keys do not share long prefixes.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
