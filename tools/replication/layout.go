package replication

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// Layout is how the log is split into streams: Streams streams
// MBF_LOG_00 ... (subjects mbf.log.00 ...), stream i holding the writes
// to slots [i*16384/Streams, (i+1)*16384/Streams).
type Layout struct {
	// Streams is the number of streams, a power of two from 1 to 256.
	Streams int
	// Replicas is each stream's replication factor: min(3, nodes).
	Replicas int
	// MaxAge and MaxBytes bound what each stream keeps (0: no bound);
	// when set, at least MinMaxAge and MinMaxBytes.
	MaxAge   time.Duration
	MaxBytes int64
}

// The least MaxAge and MaxBytes a Layout takes: what one node's
// recovery needs of a stream (docs/cluster.md, "Retention").
//
//   - MinMaxAge, 2 minutes: the streams' Nats-Msg-Id deduplication
//     window (dupWindow), within which a publish retried after a lost
//     PubAck is stored once; nats-server refuses a MaxAge below it. It
//     also covers a node's restart: the node replays from its recorded
//     position (at most Config.Checkpoint behind what it applied) once
//     its NATS server rejoined.
//   - MinMaxBytes, 64 MiB: 64 messages of the largest size (1 MiB: two
//     DefaultMaxBatchBytes), room for every message 16 nodes may have in
//     flight on a stream at once (Config.MaxInFlight, 4 each), so that a
//     stream never discards a message before its origin, which applies
//     its own records from the stream before it answers, can read it
//     back; a node behind by more bootstraps from a peer.
const (
	MinMaxAge   = dupWindow
	MinMaxBytes = 64 << 20
)

// dupWindow is the streams' Nats-Msg-Id deduplication window.
const dupWindow = 2 * time.Minute

// Slots is the number of Redis Cluster hash slots.
const Slots = 16384

// ErrLayout is returned (wrapped) for a bad Layout.
var ErrLayout = errors.New("replication: bad layout")

// Check validates l.
func (l Layout) Check() error {
	if l.Streams < 1 || l.Streams > 256 || l.Streams&(l.Streams-1) != 0 {
		return fmt.Errorf("%w: %d streams: want a power of two from 1 to 256", ErrLayout, l.Streams)
	}
	if l.Replicas < 1 || l.Replicas > 5 {
		return fmt.Errorf("%w: %d replicas: want 1 to 5", ErrLayout, l.Replicas)
	}
	if l.MaxAge < 0 || l.MaxAge > 0 && l.MaxAge < MinMaxAge {
		return fmt.Errorf("%w: max age %v: want 0 (no bound) or at least %v (the log's deduplication window and a node's restart)",
			ErrLayout, l.MaxAge, MinMaxAge)
	}
	if l.MaxBytes < 0 || l.MaxBytes > 0 && l.MaxBytes < MinMaxBytes {
		return fmt.Errorf("%w: max bytes %d: want 0 (no bound) or at least %d (64 MiB: the messages a stream may have in flight)",
			ErrLayout, l.MaxBytes, MinMaxBytes)
	}
	return nil
}

// StreamOf is the stream holding the writes to slot.
func (l Layout) StreamOf(slot int) int { return slot / (Slots / l.Streams) }

// SlotsOf is the first and last slot of stream i.
func (l Layout) SlotsOf(i int) (first, last int) {
	w := Slots / l.Streams
	return i * w, (i+1)*w - 1
}

// StreamName is stream i's JetStream name.
func StreamName(i int) string { return fmt.Sprintf("MBF_LOG_%02d", i) }

// Subject is the subject stream i stores.
func Subject(i int) string { return fmt.Sprintf("mbf.log.%02d", i) }

// ensureStreams creates the streams, or updates their limits.
func (l Layout) ensureStreams(js nats.JetStreamContext) error {
	for i := 0; i < l.Streams; i++ {
		cfg := &nats.StreamConfig{
			Name: StreamName(i), Subjects: []string{Subject(i)}, Replicas: l.Replicas,
			Storage: nats.FileStorage, Retention: nats.LimitsPolicy, Discard: nats.DiscardOld,
			MaxAge: l.MaxAge, MaxBytes: orUnlimited(l.MaxBytes), Duplicates: dupWindow,
		}
		_, err := js.AddStream(cfg)
		if errors.Is(err, nats.ErrStreamNameAlreadyInUse) {
			_, err = js.UpdateStream(cfg)
		}
		if err != nil {
			return fmt.Errorf("replication: stream %s: %w", cfg.Name, err)
		}
	}
	return nil
}

func orUnlimited(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}
