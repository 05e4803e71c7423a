package replication

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Layout is how the log is split into streams: Streams streams
// MBF_LOG_00 ... (subjects mbf.log.00 ...), stream i holding the writes
// to slots [i*16384/Streams, (i+1)*16384/Streams).
type Layout struct {
	// Prefix names the cluster's streams PREFIX_LOG_NN, their subjects
	// prefix.log.NN (in lower case) and its key-value buckets
	// PREFIX_NAME (Bucket), so that clusters with different prefixes
	// share one NATS account: 1 to 32 upper-case letters, digits, '_'
	// or '-', beginning with a letter. Default DefaultPrefix, the names
	// of the clusters made before prefixes existed.
	Prefix string
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

// DefaultPrefix is Layout.Prefix's default.
const DefaultPrefix = "MBF"

// ErrLayout is returned (wrapped) for a bad Layout.
var ErrLayout = errors.New("replication: bad layout")

// Check validates l.
func (l Layout) Check() error {
	if !validPrefix(l.Prefix) {
		return fmt.Errorf("%w: prefix %q: want 1 to 32 upper-case letters, digits, '_' or '-', beginning with a letter", ErrLayout, l.Prefix)
	}
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

// validPrefix reports whether p is a valid Layout.Prefix ("" is the
// default). Upper case only, so that the lower-case subjects of two
// prefixes differ as their stream names do.
func validPrefix(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > 32 || p[0] < 'A' || p[0] > 'Z' {
		return false
	}
	for _, c := range []byte(p) {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// prefix is Prefix or its default.
func (l Layout) prefix() string {
	if l.Prefix == "" {
		return DefaultPrefix
	}
	return l.Prefix
}

// StreamName is stream i's JetStream name, PREFIX_LOG_NN.
func (l Layout) StreamName(i int) string { return fmt.Sprintf("%s_LOG_%02d", l.prefix(), i) }

// Subject is the subject stream i stores, prefix.log.NN.
func (l Layout) Subject(i int) string {
	return fmt.Sprintf("%s.log.%02d", strings.ToLower(l.prefix()), i)
}

// Bucket is the name of one of the cluster's key-value buckets,
// PREFIX_NAME: Bucket("LEASES") holds the leases (package lease),
// Bucket("NODES") the nodes' limits.
func (l Layout) Bucket(name string) string { return l.prefix() + "_" + name }

// ensureStreams creates the streams, or updates their limits.
func (l Layout) ensureStreams(js nats.JetStreamContext) error {
	for i := 0; i < l.Streams; i++ {
		cfg := &nats.StreamConfig{
			Name: l.StreamName(i), Subjects: []string{l.Subject(i)}, Replicas: l.Replicas,
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
