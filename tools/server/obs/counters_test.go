package obs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

func TestCountersReset(t *testing.T) {
	var c obs.Counters
	c.Calls.Add(3)
	c.Nanos.Add(3000)
	c.Rejected.Add(1)
	c.Failed.Add(2)
	c.Hist.Record(1000, 3)
	c.Reset()
	for name, v := range map[string]int64{"calls": c.Calls.Load(), "nanos": c.Nanos.Load(),
		"rejected": c.Rejected.Load(), "failed": c.Failed.Load()} {
		assert.Zero(t, v, name)
	}
	assert.Zero(t, c.Hist.Snapshot().Total)
}
