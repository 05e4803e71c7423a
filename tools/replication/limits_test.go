package replication

import (
	"fmt"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startSmallPayload starts one JetStream nats-server whose max_payload
// is maxPayload bytes (an external cluster's setting) and returns its
// client URL.
func startSmallPayload(t *testing.T, maxPayload int32) string {
	t.Helper()
	if Embedded32Bit {
		t.Skip("no embedded nats-server on a 32-bit platform (Embedded32Bit)")
	}
	srv, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsserver.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true, MaxPayload: maxPayload})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv.ClientURL()
}

// The records a log takes and the messages it sends fit the max_payload
// of the server it is connected to, read from the connection (64 KiB
// here, not NATS's default 1 MiB): records submitted together are
// grouped into messages that fit, and a record larger than
// MaxRecordBytes fails at once with ErrTooLarge, which no retry fixes,
// not with the retryable ErrPublish.
func TestRecordsFitMaxPayload(t *testing.T) {
	const maxPayload = 64 << 10
	url := startSmallPayload(t, maxPayload)
	l := openLog(t, url, "n1", Layout{Streams: 1, Replicas: 1}, t.TempDir(), nil)
	ctx := ctxT(t, time.Minute)
	most := l.MaxRecordBytes()
	assert.Greater(t, most, maxPayload/2-1024, "half of max_payload less a small envelope")
	assert.LessOrEqual(t, most, maxPayload/2)

	m := newMem()
	l.Follow([]int{0}, m)
	var acks []*Ack
	for i := range 8 { // submitted at once: grouped while the first is in flight
		item := fmt.Sprint(i, "-")
		rec := addRec("seen", item+strings.Repeat("x", most/2))
		acks = append(acks, l.Submit(0, rec))
	}
	for i, a := range acks {
		_, err := a.Wait(ctx)
		require.NoError(t, err, "record %d", i)
	}
	_, err := l.Publish(ctx, 0, recordOfSize(t, most+1))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.NotErrorIs(t, err, ErrPublish, "not a retryable error")
	assert.Contains(t, err.Error(), fmt.Sprint(maxPayload), "names NATS's limit")
	seq, err := l.Publish(ctx, 0, recordOfSize(t, most))
	require.NoError(t, err, "a record of MaxRecordBytes fits")
	require.NoError(t, l.WaitApplied(ctx, 0, seq))
	for i := range 8 {
		assert.True(t, m.has("seen", fmt.Sprint(i, "-")+strings.Repeat("x", most/2)), "record %d applied", i)
	}
}

// Records one node submits to a stream are stored in the order it
// submitted them, across messages in flight together.
func TestRecordsInSubmissionOrder(t *testing.T) {
	_, urls := cluster(t, 1)
	l := openLog(t, urls[0], "n1", Layout{Streams: 1, Replicas: 1}, t.TempDir(), func(c *Config) { c.FlushBytes = 1 })
	ctx := ctxT(t, time.Minute)
	var acks []*Ack
	for i := range 2000 {
		acks = append(acks, l.Submit(0, addRec("seen", fmt.Sprint(i))))
	}
	var prev uint64
	for i, a := range acks {
		seq, err := a.Wait(ctx)
		require.NoError(t, err)
		require.GreaterOrEqual(t, seq, prev, "record %d stored after record %d", i, i-1)
		prev = seq
	}
}

// recordOfSize is an OpAdd record of exactly n bytes (RecordSize).
func recordOfSize(t *testing.T, n int) Record {
	t.Helper()
	r := addRec("sized", "")
	for size := n - RecordSize(r); size >= 0; size-- {
		r.Fields[1] = make([]byte, size)
		if RecordSize(r) == n {
			return r
		}
	}
	require.FailNow(t, "no record of that size", "%d bytes", n)
	return r
}
