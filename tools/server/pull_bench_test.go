package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// BenchmarkPull: a repeat pull of 2,000 small fixed filters (1,000 keys
// at p 0.01 each) from a primary in the same process.
func BenchmarkPull(b *testing.B) {
	tc := startCluster(b, primaryAndReplica)
	c := context.Background()
	p := redis.NewClient(&redis.Options{Addr: tc.addrs[0]})
	defer p.Close()
	pipe := p.Pipeline()
	for i := range 2000 {
		pipe.BFAdd(c, fmt.Sprintf("seen:{h%d}", i), "x")
	}
	_, err := pipe.Exec(c)
	require.NoError(b, err)
	r := redis.NewClient(&redis.Options{Addr: tc.addrs[1]})
	defer r.Close()
	require.NoError(b, r.Do(c, "MBF.PULL").Err())
	b.ResetTimer()
	for range b.N {
		require.NoError(b, r.Do(c, "MBF.PULL").Err())
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/2000, "µs/key")
}
