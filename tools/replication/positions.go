package replication

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
)

// positions is the file DIR/applied: one line `STREAM SEQ` per stream,
// the last sequence applied and synced locally, STREAM named MBF_LOG_NN
// whatever Layout.Prefix (the file is this node's own, the stream its
// index). It is rewritten whole
// (temporary file, fsync, rename, fsync of the directory).
type positions struct {
	path string
	mu   sync.Mutex
	seq  []uint64
}

// positionsFile is the name of the file in Config.Dir.
const positionsFile = "applied"

func openPositions(dir string, streams int) (*positions, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("replication: %w", err)
	}
	p := &positions{path: filepath.Join(dir, positionsFile), seq: make([]uint64, streams)}
	b, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("replication: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		name, v, ok := strings.Cut(sc.Text(), " ")
		seq, err := strconv.ParseUint(v, 10, 64)
		var i int
		if _, serr := fmt.Sscanf(name, "MBF_LOG_%d", &i); !ok || err != nil || serr != nil {
			return nil, fmt.Errorf("%w: %s line %d: want `MBF_LOG_NN SEQ`", ErrEntry, p.path, line)
		}
		if i >= 0 && i < streams {
			p.seq[i] = seq
		}
	}
	return p, nil
}

// get is stream i's recorded position.
func (p *positions) get(i int) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq[i]
}

// set records stream i at seq, durably.
func (p *positions) set(i int, seq uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq[i] = seq
	var b bytes.Buffer
	for j, s := range p.seq {
		fmt.Fprintf(&b, "%s %d\n", Layout{}.StreamName(j), s)
	}
	if err := durable.WriteFile(p.path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("replication: record position: %w", err)
	}
	return nil
}

// rewind lowers each recorded position past its stream's last sequence
// to that sequence, durably, logging it with logf (when not nil): the
// log lost its tail past what this node applied and synced (a power cut
// of every node whose JetStream stores had not synced it: appendfsync
// everysec or no), and the records published from now on take the lost
// sequences; skipped as applied already, they would be acknowledged and
// never applied here. The adds of the lost records stay in the filters.
func (p *positions) rewind(js nats.JetStreamContext, l Layout, logf func(string, ...any)) error {
	for i := range l.Streams {
		rec := p.get(i)
		if rec == 0 {
			continue
		}
		si, err := js.StreamInfo(l.StreamName(i))
		if err != nil {
			return fmt.Errorf("replication: %s: %w", l.StreamName(i), err)
		}
		if last := si.State.LastSeq; last < rec {
			if err := p.set(i, last); err != nil {
				return err
			}
			if logf != nil {
				logf("replication: %s: recorded position %d is past the log's last sequence %d (the log lost its tail: a power cut of every node before their stores synced it): applying from %d", l.StreamName(i), rec, last, last+1)
			}
		}
	}
	return nil
}

// ForgetPositions records position 0 for the streams which in the
// positions file of dir (Config.Dir, of a layout of streams streams),
// durably, and returns the positions they had, in the order of which.
// Call it before Open. Their followers then apply them again from the
// stream's first entry, or copy their slots from a peer
// (Applier.Bootstrap) when the log no longer holds it: so a node
// rebuilds the keys whose files it lost (serve moves a damaged filter
// file aside). Errors: the file's read or write errors, ErrEntry for a
// malformed file.
func ForgetPositions(dir string, streams int, which []int) ([]uint64, error) {
	p, err := openPositions(dir, streams)
	if err != nil {
		return nil, err
	}
	old := make([]uint64, len(which))
	for i, st := range which {
		old[i] = p.get(st)
		if err := p.set(st, 0); err != nil {
			return nil, err
		}
	}
	return old, nil
}
