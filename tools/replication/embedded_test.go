package replication

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStartEmbedded32Bit: on a 32-bit platform (the 386 run of .ci/run)
// StartEmbedded refuses with ErrEmbedded instead of starting a
// nats-server that panics on its first statistics.
func TestStartEmbedded32Bit(t *testing.T) {
	if !Embedded32Bit {
		t.Skip("64-bit: StartEmbedded runs (every other test of the package)")
	}
	_, err := StartEmbedded(EmbeddedConfig{Name: "n1", StoreDir: t.TempDir()})
	require.ErrorIs(t, err, ErrEmbedded)
	require.ErrorContains(t, err, "32-bit")
}
