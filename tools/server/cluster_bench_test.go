package server

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// BenchmarkClusterClient measures BF.ADD and BF.MEXISTS (10 items)
// throughput through go-redis's ClusterClient, pipelined (8 goroutines,
// 100 commands a pipeline, 1,000 keys seen:{hN}), against one node
// owning every slot and against three nodes, all in this process.
// Reported: ops/s (commands) and items/s.
func BenchmarkClusterClient(b *testing.B) {
	for _, nodes := range []int{1, 3} {
		slots := []string{"0-16383"}
		if nodes == 3 {
			slots = threeRanges
		}
		for _, op := range []string{"bf.add", "bf.mexists"} {
			b.Run(strconv.Itoa(nodes)+"nodes/"+op, func(b *testing.B) {
				tc := startCluster(b, slots)
				cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: tc.addrs, PoolSize: 16})
				defer cc.Close()
				benchPipelined(b, cc, op)
			})
		}
	}
}

func benchPipelined(b *testing.B, cc *redis.ClusterClient, op string) {
	const workers, depth, items = 8, 100, 10
	c := context.Background()
	var next sync.Mutex
	done := 0
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				next.Lock()
				if done >= b.N {
					next.Unlock()
					return
				}
				n := min(depth, b.N-done)
				done += n
				next.Unlock()
				_, err := cc.Pipelined(c, func(p redis.Pipeliner) error {
					for j := range n {
						key := "seen:{h" + strconv.Itoa((w*7919+i*depth+j)%1000) + "}"
						item := strconv.Itoa(w) + "-" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
						if op == "bf.add" {
							p.BFAdd(c, key, item)
							continue
						}
						args := make([]any, items)
						for x := range args {
							args[x] = item + "-" + strconv.Itoa(x)
						}
						p.BFMExists(c, key, args...)
					}
					return nil
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	if op == "bf.mexists" {
		b.ReportMetric(float64(b.N*items)/b.Elapsed().Seconds(), "items/s")
	}
}
