package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCRC16(t *testing.T) {
	// Redis Cluster specification, appendix A: the test vector.
	assert.Equal(t, uint16(0x31C3), CRC16([]byte("123456789")))
	assert.Equal(t, uint16(0), CRC16(nil))
}

// TestKeySlot checks slots against Redis's documentation and against
// Debian's redis-server 7.0.15 (CLUSTER KEYSLOT, cluster-enabled yes).
func TestKeySlot(t *testing.T) {
	for _, tc := range []struct {
		key  string
		slot int
	}{
		{"somekey", 11058},      // Redis docs, CLUSTER KEYSLOT
		{"foo{hash_tag}", 2515}, // Redis docs, CLUSTER KEYSLOT
		{"hash_tag", 2515},
		{"123456789", 0x31C3 % Slots},
		{"", 0},
		// Hash-tag rule edge cases (values from redis-server's CLUSTER KEYSLOT).
		{"{user1000}.following", 3443},
		{"user1000", 3443},
		{"foo{}{bar}", 8363},
		{"foo{{bar}}zap", 4015},
		{"{bar", 4015},
		{"foo{bar}{zap}", KeySlot([]byte("bar"))},
		{"{", 4092},
		{"a}b{", 6027},
		{"seen:{example.com}", 8592},
	} {
		assert.Equal(t, tc.slot, KeySlot([]byte(tc.key)), "%q", tc.key)
	}
}
