package mapping

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMemAvailable(t *testing.T) {
	for name, tc := range map[string]struct {
		meminfo string
		want    uint64
		ok      bool
	}{
		"kernel":    {"MemTotal:       24683584 kB\nMemFree:        22986604 kB\nMemAvailable:   24055960 kB\nBuffers:  16724 kB\n", 24055960 << 10, true},
		"missing":   {"MemTotal:       24683584 kB\nMemFree:        22986604 kB\n", 0, false},
		"not kB":    {"MemAvailable:   24055960 MB\n", 0, false},
		"negative":  {"MemAvailable:   -5 kB\n", 0, false},
		"too large": {"MemAvailable:   99999999999999999999 kB\n", 0, false},
		"empty":     {"", 0, false},
	} {
		got, ok := memAvailable([]byte(tc.meminfo))
		require.Equal(t, tc.ok, ok, name)
		require.Equal(t, tc.want, got, name)
	}
	n, ok := Available()
	require.True(t, ok, "/proc/meminfo")
	require.Positive(t, n)
}

// FuzzMemAvailable: any text parses without a panic, to a value that
// fits in bytes.
func FuzzMemAvailable(f *testing.F) {
	f.Add([]byte("MemAvailable:   24055960 kB\n"))
	f.Add([]byte("MemAvailable: 9007199254740992 kB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, ok := memAvailable(b); ok {
			require.LessOrEqual(t, n, uint64(1<<63))
		}
	})
}
