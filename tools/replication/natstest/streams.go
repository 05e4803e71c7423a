package natstest

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// DeleteConsumer deletes the durable consumer of stream on js; a
// consumer that does not exist is no failure.
func DeleteConsumer(t testing.TB, js nats.JetStreamContext, stream, consumer string) {
	t.Helper()
	if err := js.DeleteConsumer(stream, consumer); err != nil {
		require.ErrorIs(t, err, nats.ErrConsumerNotFound)
	}
}

// Purge removes the messages of stream on js below sequence keep, as
// the stream's retention would.
func Purge(t testing.TB, js nats.JetStreamContext, stream string, keep uint64) {
	t.Helper()
	require.NoError(t, js.PurgeStream(stream, &nats.StreamPurgeRequest{Sequence: keep}))
}

// SetMaxMsgSize sets the largest message (bytes; -1: the server's
// max_payload) each of streams takes, through the nats-server at url.
func SetMaxMsgSize(t testing.TB, url string, size int32, streams ...string) {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	js, err := nc.JetStream()
	require.NoError(t, err)
	for _, name := range streams {
		si, err := js.StreamInfo(name)
		require.NoError(t, err)
		si.Config.MaxMsgSize = size
		_, err = js.UpdateStream(&si.Config)
		require.NoError(t, err)
	}
}
