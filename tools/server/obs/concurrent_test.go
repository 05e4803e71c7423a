package obs_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// TestConcurrentRecords: records from several goroutines at once, with
// readers beside them, all count (the race detector watches the rest).
func TestConcurrentRecords(t *testing.T) {
	const writers, each = 4, 1000
	var (
		c    obs.Counters
		e    obs.ErrorStats
		l    obs.SlowLog
		m    obs.LatencyMonitor
		wg   sync.WaitGroup
		read sync.WaitGroup
		stop = make(chan struct{})
	)
	read.Add(1)
	go func() {
		defer read.Done()
		for range 1_000_000 { // until the writers are done, bounded
			select {
			case <-stop:
				return
			default:
				_ = c.Hist.Snapshot().Percentile(0.99)
				_ = e.Counts()
				_ = l.Latest(-1)
				_ = m.Latest()
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				c.Calls.Add(1)
				c.Hist.Record(int64(i), 1)
				e.Add("ERR x", 1)
				l.Add(obs.SlowEntry{Usec: int64(i)}, 10)
				m.Add("command", int64(w), int64(i))
			}
		}()
	}
	wg.Wait()
	close(stop)
	read.Wait()
	assert.EqualValues(t, writers*each, c.Calls.Load())
	assert.EqualValues(t, writers*each, c.Hist.Snapshot().Total)
	assert.EqualValues(t, writers*each, e.Total())
	assert.Equal(t, map[string]int64{"ERR": writers * each}, e.Counts())
	assert.Equal(t, 10, l.Len())
	assert.EqualValues(t, writers*each-1, l.Latest(1)[0].ID)
	assert.EqualValues(t, each-1, m.Latest()[0].Max)
}
