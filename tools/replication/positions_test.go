package replication

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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
				require.NoError(t, p.set(i, seq, fmt.Sprint("id", seq)))
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

// A line of the positions file: `MBF_LOG_NN SEQ`, then its marks as
// pairs ` SEQ ID` (none in the files of earlier versions).
func TestParsePosition(t *testing.T) {
	tests := []struct {
		line   string
		stream int
		seq    uint64
		marks  []mark
		ok     bool
	}{
		{"MBF_LOG_02 30", 2, 30, nil, true},
		{"MBF_LOG_00 7 7 n1/x:0:3 5 n2/y:0:9", 0, 7, []mark{{7, "n1/x:0:3"}, {5, "n2/y:0:9"}}, true},
		{"MBF_LOG_00 7 7", 0, 0, nil, false},
		{"MBF_LOG_00 7 x id", 0, 0, nil, false},
		{"MBF_LOG_00", 0, 0, nil, false},
		{"LOG_00 7", 0, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			stream, seq, marks, ok := parsePosition(tt.line)
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.stream, stream)
				assert.Equal(t, tt.seq, seq)
				assert.Equal(t, tt.marks, marks)
			}
		})
	}
}

// set keeps the newest mark in place within markSpacing, adds one
// after it, keeps at most marksKept and writes them all to the file;
// rewind drops those past the lower position, set with no id all.
func TestPositionMarks(t *testing.T) {
	dir := t.TempDir()
	p, err := openPositions(dir, 1)
	require.NoError(t, err)
	require.NoError(t, p.set(0, 1, "a"))
	require.NoError(t, p.set(0, 2, "b"))
	assert.Equal(t, []mark{{2, "b"}}, p.marksOf(0), "within markSpacing: in place")
	for i := range marksKept + 3 {
		p.since[0] = time.Now().Add(-markSpacing) // as if a second had passed
		require.NoError(t, p.set(0, uint64(10+i), fmt.Sprint("m", i)))
	}
	marks := p.marksOf(0)
	require.Len(t, marks, marksKept)
	assert.Equal(t, mark{uint64(10 + marksKept + 2), fmt.Sprint("m", marksKept+2)}, marks[0])
	require.NoError(t, p.rewind(0, 20))
	assert.Equal(t, uint64(20), p.marksOf(0)[0].seq, "the marks past the position dropped")
	q, err := openPositions(dir, 1)
	require.NoError(t, err)
	assert.Equal(t, p.marksOf(0), q.marksOf(0), "the file holds the marks")
	assert.Equal(t, uint64(20), q.get(0))

	require.NoError(t, p.set(0, 30, ""))
	assert.Empty(t, p.marksOf(0), "no mark after a bootstrap")

	require.NoError(t, os.WriteFile(filepath.Join(dir, positionsFile), []byte("MBF_LOG_00 7 7\n"), 0o644))
	_, err = openPositions(dir, 1)
	require.ErrorIs(t, err, ErrEntry)
}

// unansweredInfo is a JetStream context whose ConsumerInfo of one
// consumer is never answered (it waits for its request's context, as a
// request nats-server drops does).
type unansweredInfo struct {
	nats.JetStreamContext
	durable string
}

func (u unansweredInfo) ConsumerInfo(stream, name string, opts ...nats.JSOpt) (*nats.ConsumerInfo, error) {
	if name != u.durable {
		return u.JetStreamContext.ConsumerInfo(stream, name, opts...)
	}
	for _, o := range opts {
		if c, ok := o.(nats.ContextOpt); ok {
			<-c.Done()
			return nil, c.Err()
		}
	}
	return nil, nats.ErrTimeout
}

// TestNodeAppliedUnanswered: a read of a node's durable position whose
// request nats-server leaves unanswered ends within NodeAppliedWait, not
// at its caller's deadline (a WAIT polling the positions then asks
// again, and sees the other nodes' answers meanwhile); the other node's
// position is read as before.
func TestNodeAppliedUnanswered(t *testing.T) {
	_, urls := cluster(t, 1)
	layout := Layout{Streams: 1, Replicas: 1}
	l := openLog(t, urls[0], "n1", layout, t.TempDir(), nil)
	l.Follow([]int{0}, newMem())
	ctx := ctxT(t, 2*time.Minute)
	_, err := l.Publish(ctx, 0, addRec("seen", "u"))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := l.NodeApplied(ctx, 0, "n1")
		return err == nil && got == 1
	}, time.Minute, 50*time.Millisecond, "n1's durable position reaches 1")

	l.js = unansweredInfo{JetStreamContext: l.js, durable: "mbf_n2"}
	_, err = l.NodeApplied(ctx, 0, "n2")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, ctx.Err(), "the read ended before its caller's deadline")
	got, err := l.NodeApplied(ctx, 0, "n1")
	require.NoError(t, err)
	require.Equal(t, uint64(1), got)
}
