package replication

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Three nodes follow two R3 streams; one node's 2,000 concurrently
// submitted adds are group-committed into fewer messages and applied on
// every node; a control record's result comes back from the origin's
// own follower; each node's durable position reaches the end.
func TestLogReplicatesToEveryNode(t *testing.T) {
	_, urls := cluster(t, 3)
	layout := Layout{Streams: 2, Replicas: 3}
	var logs []*Log
	var mems []*memApplier
	for i, u := range urls {
		l := openLog(t, u, fmt.Sprintf("n%d", i+1), layout, t.TempDir(), nil)
		m := newMem()
		l.Follow([]int{0, 1}, m)
		logs, mems = append(logs, l), append(mems, m)
	}
	ctx := ctxT(t, time.Minute)
	const adds = 2000
	acks := make([]*Ack, adds)
	for i := range acks {
		acks[i] = logs[0].Submit(i%2, addRec("seen", fmt.Sprint("u", i)))
	}
	for _, a := range acks {
		_, err := a.Wait(ctx)
		require.NoError(t, err)
	}
	seq, res, err := logs[0].Execute(ctx, 1, Record{Op: OpCommand, Fields: [][]byte{[]byte("DEL"), []byte("k")}})
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("DEL@%d by n1", seq), res)
	for s := 0; s < 2; s++ {
		last, err := logs[0].LastSeq(ctx, s)
		require.NoError(t, err)
		assert.Less(t, last, uint64(adds/2), "group commit: fewer messages than adds on stream %d", s)
		for i, l := range logs {
			_, err := l.DrainToLast(ctx, s)
			require.NoError(t, err, "node %d stream %d", i, s)
		}
	}
	for i, m := range mems {
		for j := 0; j < adds; j++ {
			require.True(t, m.has("seen", fmt.Sprint("u", j)), "node %d item %d", i, j)
		}
		assert.Equal(t, []string{"DEL"}, m.cmds)
	}
	last, err := logs[0].LastSeq(ctx, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		for i := range logs {
			if got, err := logs[0].NodeApplied(ctx, 1, fmt.Sprintf("n%d", i+1)); err != nil || got < last {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond, "every node's durable position reaches %d", last)
}
