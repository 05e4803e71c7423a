package replication

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ForgetPositions records 0 for the streams given, durably, returns
// what they had and leaves the others.
func TestForgetPositions(t *testing.T) {
	tests := []struct {
		name   string
		which  []int
		want   []uint64
		remain []uint64
	}{
		{"one", []int{2}, []uint64{30}, []uint64{10, 20, 0, 40}},
		{"two", []int{0, 3}, []uint64{10, 40}, []uint64{0, 20, 30, 0}},
		{"none", nil, []uint64{}, []uint64{10, 20, 30, 40}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := openPositions(dir, 4)
			require.NoError(t, err)
			for i, seq := range []uint64{10, 20, 30, 40} {
				require.NoError(t, p.set(i, seq))
			}
			old, err := ForgetPositions(dir, 4, tt.which)
			require.NoError(t, err)
			assert.Equal(t, tt.want, old)
			p, err = openPositions(dir, 4)
			require.NoError(t, err)
			assert.Equal(t, tt.remain, p.seq)
		})
	}
}
