package obs_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mmapbloom/mmapbloom/tools/server/obs"
)

// TestErrorStats: errors count by their first word (up to a space or a
// CR), as given or as a whole reply line.
func TestErrorStats(t *testing.T) {
	var e obs.ErrorStats
	for _, tc := range []struct {
		msg string
		n   int64
	}{
		{"ERR unknown command 'x'", 1},
		{"ERR", 2},
		{"NOAUTH Authentication required.", 1},
		{"WRONGPASS\r\n", 1},
		{"", 1},
	} {
		e.Add(tc.msg, tc.n)
	}
	assert.Equal(t, map[string]int64{"ERR": 3, "NOAUTH": 1, "WRONGPASS": 1, "": 1}, e.Counts())
	assert.EqualValues(t, 6, e.Total())

	counts := e.Counts()
	counts["ERR"] = 100
	assert.EqualValues(t, 3, e.Counts()["ERR"], "Counts is a copy")

	e.Reset()
	assert.Empty(t, e.Counts())
	assert.Zero(t, e.Total())
}

// TestErrorStatsCodeBound: past 128 codes, a new code counts in the
// total only; the codes already known go on counting.
func TestErrorStatsCodeBound(t *testing.T) {
	var e obs.ErrorStats
	for i := range 200 {
		e.Add(fmt.Sprintf("E%d x", i), 1)
	}
	e.Add("E0", 1)
	assert.Len(t, e.Counts(), 128)
	assert.EqualValues(t, 2, e.Counts()["E0"])
	assert.NotContains(t, e.Counts(), "E128")
	assert.EqualValues(t, 201, e.Total())
}
