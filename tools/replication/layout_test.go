package replication

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default prefix keeps the names of the clusters made before
// prefixes (their data stays readable); another prefix changes every
// name the cluster has on NATS.
func TestLayoutNames(t *testing.T) {
	for _, tc := range []struct {
		prefix                         string
		stream, subject, leases, nodes string
	}{
		{"", "MBF_LOG_07", "mbf.log.07", "MBF_LEASES", "MBF_NODES"},
		{"MBF", "MBF_LOG_07", "mbf.log.07", "MBF_LEASES", "MBF_NODES"},
		{"EU-WEST_2", "EU-WEST_2_LOG_07", "eu-west_2.log.07", "EU-WEST_2_LEASES", "EU-WEST_2_NODES"},
	} {
		l := Layout{Prefix: tc.prefix, Streams: 8, Replicas: 3}
		require.NoError(t, l.Check())
		assert.Equal(t, tc.stream, l.StreamName(7))
		assert.Equal(t, tc.subject, l.Subject(7))
		assert.Equal(t, tc.leases, l.Bucket("LEASES"))
		assert.Equal(t, tc.nodes, l.Bucket("NODES"))
	}
}

// A prefix that would make a bad name, or two prefixes' subjects equal,
// is refused.
func TestLayoutBadPrefix(t *testing.T) {
	for _, p := range []string{"mbf", "Mbf", "1MBF", "_MBF", "A.B", "A B", "A*", "A>", "ÄB", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"} {
		err := Layout{Prefix: p, Streams: 1, Replicas: 1}.Check()
		require.ErrorIs(t, err, ErrLayout, "prefix %q", p)
	}
}
