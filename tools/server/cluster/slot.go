package cluster

// Slots is the number of hash slots of a Redis cluster.
const Slots = 16384

// crcTable is the CRC16-XMODEM (CCITT polynomial 0x1021, initial value
// 0, no reflection) table Redis's crc16.c uses.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC16 is CRC16-XMODEM of b, the checksum Redis Cluster hashes keys
// with (CRC16("123456789") = 0x31C3).
func CRC16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crcTable[byte(c>>8)^x]
	}
	return c
}

// HashTag returns the part of key that decides its slot: the bytes
// between the first '{' and the first '}' after it when that is not
// empty, else the whole key (Redis's keyHashSlot).
func HashTag(key []byte) []byte {
	for i, b := range key {
		if b != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j == i+1 {
					return key
				}
				return key[i+1 : j]
			}
		}
		return key
	}
	return key
}

// KeySlot returns the hash slot of key, 0 to Slots-1.
func KeySlot(key []byte) int { return int(CRC16(HashTag(key)) & (Slots - 1)) }
