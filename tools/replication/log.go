package replication

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Config is one node's connection to the log.
type Config struct {
	// URLs are NATS client URLs (an embedded server's ClientURL, or the
	// external cluster's).
	URLs []string
	// Node is this node's id: its consumers are named "mbf_" + Node.
	Node string
	// Layout is the streams' layout (Layout.Check).
	Layout Layout
	// Dir holds the recorded applied positions (serve: DIR/.replication).
	Dir string
	// Auth is the connection's credentials and TLS (an embedded
	// server's Embedded.Client, or the external cluster's).
	Auth ClientAuth
	// PublishTimeout bounds the wait for a PubAck. Default 5 s.
	PublishTimeout time.Duration
	// MaxInFlight is the most messages of one stream awaiting their
	// PubAck. Default 4.
	MaxInFlight int
	// FlushBytes is the size in bytes at which a message is sent while
	// others of its stream are in flight; below it, records wait for
	// the PubAcks (fewer, larger messages). Default 64 KiB.
	FlushBytes int
	// MaxBatchRecords and MaxBatchBytes bound one message: a message
	// is sent once it holds MaxBatchRecords records or MaxBatchBytes
	// bytes, so it holds less than MaxBatchBytes plus one record, and a
	// record is at most MaxBatchBytes (Log.MaxRecordBytes, which also
	// keeps both within half of the server's max_payload). Defaults
	// 4096 records and DefaultMaxBatchBytes.
	MaxBatchRecords, MaxBatchBytes int
	// Checkpoint is how often a follower syncs and records its applied
	// position while entries keep coming. Default 1 s.
	Checkpoint time.Duration
	// FetchWait is how long one pull waits for entries. Default 1 s.
	FetchWait time.Duration
	// StartTimeout bounds Open's wait for the streams while the cluster
	// forms (no JetStream leader yet). Default 60 s.
	StartTimeout time.Duration
	// AckWait is the consumers' AckWait: a message delivered and not
	// acknowledged for this long is delivered again. Default 30 s.
	AckWait time.Duration
	// Logf, when set, reports a follower stopped on an Applier error and
	// its resumption (serve: the server's log). Default: nothing logged.
	Logf func(format string, args ...any)
}

func (c *Config) fill() error {
	if err := c.Layout.Check(); err != nil {
		return err
	}
	if c.Node == "" || c.Dir == "" || len(c.URLs) == 0 {
		return fmt.Errorf("%w: a node id, a directory and NATS URLs are required", ErrLayout)
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxInFlight, 4)
	def(&c.FlushBytes, 64<<10)
	def(&c.MaxBatchRecords, 4096)
	def(&c.MaxBatchBytes, DefaultMaxBatchBytes)
	for _, d := range []struct {
		v *time.Duration
		d time.Duration
	}{{&c.PublishTimeout, 5 * time.Second}, {&c.Checkpoint, time.Second}, {&c.FetchWait, time.Second}, {&c.AckWait, 30 * time.Second}, {&c.StartTimeout, time.Minute}} {
		if *d.v <= 0 {
			*d.v = d.d
		}
	}
	return nil
}

// DefaultMaxBatchBytes is Config.MaxBatchBytes' default: 512 KiB, half
// of NATS's default max_payload (1 MiB).
const DefaultMaxBatchBytes = 512 << 10

// Log is one node's handle on the replicated log: it publishes this
// node's writes (Submit, Publish, Execute) and, once Follow is called,
// applies every entry of the streams the node serves.
type Log struct {
	cfg    Config
	nc     *nats.Conn
	js     nats.JetStreamContext
	origin string // Node/epoch: the origin of this process's entries
	// envelope is the most a message takes beside its records (envelopeOf).
	envelope int
	pubs     []*streamPub
	closing  chan struct{}
	once     sync.Once
	wg       sync.WaitGroup

	batchSeq atomic.Uint64
	bytes    atomic.Uint64 // bytes published
	// bootstraps counts the followers' bootstraps.
	bootstraps atomic.Int64
	// redelivered counts messages skipped as already applied.
	redelivered atomic.Int64
	// rewinds counts, by stream, the positions lowered (resumeFrom);
	// stalls the passes applied from the leader past a consumer that
	// delivered nothing (unstall); nudges the empty messages
	// DrainToLast published.
	rewinds, stalls []atomic.Uint64
	nudges          atomic.Uint64

	mu      sync.Mutex
	waiters map[waitKey][]*Ack // by record of a message: the Acks of ExecuteAsync (nil for others)

	pos       *positions
	followers []*follower // by stream; nil when not followed
}

type waitKey struct {
	stream int
	batch  uint64
}

// Open connects to NATS, creates (or updates) the streams and starts
// the publishers. Close releases it.
func Open(cfg Config) (*Log, error) { return OpenContext(context.Background(), cfg) }

// OpenContext is Open whose wait for the cluster (Config.StartTimeout)
// also ends with ctx.
func OpenContext(ctx context.Context, cfg Config) (*Log, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	pos, err := openPositions(cfg.Dir, cfg.Layout.Streams)
	if err != nil {
		return nil, err
	}
	auth, err := cfg.Auth.options()
	if err != nil {
		return nil, err
	}
	opts := append([]nats.Option{nats.Name("mmapbloom " + cfg.Node), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond)}, auth...)
	nc, err := nats.Connect(joinURLs(cfg.URLs), opts...)
	if err != nil {
		return nil, fmt.Errorf("replication: connect: %w", err)
	}
	js, err := nc.JetStream(nats.PublishAsyncMaxPending(cfg.MaxInFlight * cfg.Layout.Streams * 2))
	if err != nil {
		nc.Close()
		return nil, err
	}
	l := &Log{cfg: cfg, nc: nc, js: js, closing: make(chan struct{}), waiters: map[waitKey][]*Ack{},
		pos: pos, followers: make([]*follower, cfg.Layout.Streams), rewinds: make([]atomic.Uint64, cfg.Layout.Streams),
		stalls: make([]atomic.Uint64, cfg.Layout.Streams),
		origin: cfg.Node + "/" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	err = retryStart(ctx, cfg.StartTimeout, func() error {
		if err := cfg.Layout.ensureStreams(js); err != nil {
			return err
		}
		for i := range cfg.Layout.Streams {
			if _, err := l.resumeFrom(ctx, i, 0, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		nc.Close()
		return nil, err
	}
	l.envelope = envelopeOf(l.origin)
	for i := 0; i < cfg.Layout.Streams; i++ {
		p := &streamPub{l: l, stream: i, in: make(chan pending, 4096), sent: make(chan struct{}, cfg.MaxInFlight)}
		l.pubs = append(l.pubs, p)
		go p.run()
	}
	return l, nil
}

// retryStart retries step (stream creation, reading the streams) while
// the cluster forms (no JetStream meta leader yet, no stream leader),
// up to limit.
func retryStart(ctx context.Context, limit time.Duration, step func() error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		err := step()
		if err == nil || ctx.Err() != nil {
			return err
		}
		pause(ctx, 250*time.Millisecond)
	}
}

func joinURLs(urls []string) string {
	s := ""
	for i, u := range urls {
		if i > 0 {
			s += ","
		}
		s += u
	}
	return s
}

// Node is this node's id.
func (l *Log) Node() string { return l.cfg.Node }

// logf logs with Config.Logf when set.
func (l *Log) logf(format string, args ...any) {
	if l.cfg.Logf != nil {
		l.cfg.Logf(format, args...)
	}
}

// Layout is the log's layout.
func (l *Log) Layout() Layout { return l.cfg.Layout }

// Conn is the NATS connection (for KV buckets and leases).
func (l *Log) Conn() *nats.Conn { return l.nc }

// JetStream is the JetStream context of Conn.
func (l *Log) JetStream() nats.JetStreamContext { return l.js }

// BytesPublished is the size of every message this node published.
func (l *Log) BytesPublished() uint64 { return l.bytes.Load() }

// Close stops the followers (recording their positions) and the
// publishers, and closes the connection. Records not yet acknowledged
// fail with ErrClosed.
func (l *Log) Close() error {
	var err error
	l.once.Do(func() {
		close(l.closing)
		l.wg.Wait()
		err = l.nc.Drain()
		if errors.Is(err, nats.ErrConnectionClosed) {
			err = nil
		}
	})
	return err
}

// Execute publishes a record and waits until this node's own follower
// has applied it at its place in the log, returning the Applier's
// result there: control operations take effect in log order on every
// node, the origin included. The node must follow stream.
func (l *Log) Execute(ctx context.Context, stream int, rec Record) (seq uint64, result any, err error) {
	return l.ExecuteAsync(stream, rec).Result(ctx)
}

// ExecuteAsync is Execute returning at once; Ack.Result waits.
func (l *Log) ExecuteAsync(stream int, rec Record) *Ack {
	a := newAck(l, stream, true)
	if stream < 0 || stream >= len(l.followers) || l.follower(stream) == nil {
		a.published(0, fmt.Errorf("%w: this node does not follow %s", ErrPublish, l.cfg.Layout.StreamName(stream)))
		return a
	}
	l.submit(stream, pending{rec: rec, ack: a})
	return a
}

// expect registers the Acks of a message's ExecuteAsync records.
func (l *Log) expect(stream int, batch uint64, acks []*Ack) {
	l.mu.Lock()
	l.waiters[waitKey{stream, batch}] = acks
	l.mu.Unlock()
}

func (l *Log) unexpect(stream int, batch uint64) {
	l.mu.Lock()
	delete(l.waiters, waitKey{stream, batch})
	l.mu.Unlock()
}

// waiting is the Acks waiting for the application of b (nil when none:
// another origin's message, or none of its records came from
// ExecuteAsync).
func (l *Log) waiting(stream int, b *Batch) []*Ack {
	if b.Origin != l.origin {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiters[waitKey{stream, b.Seq}]
}

// deliver hands the results of an applied message, at seq, to the Acks
// waiting for it.
func (l *Log) deliver(stream int, b *Batch, seq uint64, acks []*Ack, results []any) {
	l.unexpect(stream, b.Seq)
	for i, a := range acks {
		if a != nil {
			a.applied(seq, results[i])
		}
	}
}

// skipCovered fails with ErrSkipped the Acks of ExecuteAsync waiting
// for messages of stream at or below covered, which a bootstrap copied
// from a peer instead of applying them here.
func (l *Log) skipCovered(stream int, covered uint64) {
	var skipped []*Ack
	l.mu.Lock()
	for k, acks := range l.waiters {
		if k.stream != stream {
			continue
		}
		for _, a := range acks {
			if a == nil {
				continue
			}
			if seq := a.sequence(); seq == 0 || seq > covered {
				break // the message's Acks share its sequence
			}
			skipped = append(skipped, acks...)
			delete(l.waiters, k)
			break
		}
	}
	l.mu.Unlock()
	for _, a := range skipped {
		if a != nil {
			a.published(0, fmt.Errorf("%w: %s up to seq %d", ErrSkipped, l.cfg.Layout.StreamName(stream), covered))
		}
	}
}
