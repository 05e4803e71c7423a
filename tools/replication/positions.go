package replication

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
)

// positions is the file DIR/applied: one line `STREAM SEQ` per stream,
// the last sequence applied and synced locally, STREAM named MBF_LOG_NN
// whatever Layout.Prefix (the file is this node's own, the stream its
// index), followed by the stream's marks: pairs ` SEQ ID`, newest
// first, the Nats-Msg-Id ID of the message at SEQ (the checkpoints this
// node checked against the log, at least markSpacing apart but the
// newest, at most marksKept; none after a bootstrap). It is rewritten
// whole (temporary file, fsync, rename, fsync of the directory).
type positions struct {
	path  string
	mu    sync.Mutex
	seq   []uint64
	marks [][]mark    // by stream, newest first
	since []time.Time // by stream: when marks[i][0] began to stand for its second
}

// mark is a checkpoint: the message at seq had Nats-Msg-Id id.
type mark struct {
	seq uint64
	id  string
}

// A stream keeps at most marksKept marks, markSpacing apart (but the
// newest): about 15 s of checkpoints, more than the log's tail a power
// cut of every node loses with appendfsync everysec (its last second
// or two).
const (
	marksKept   = 16
	markSpacing = time.Second
)

// positionsFile is the name of the file in Config.Dir.
const positionsFile = "applied"

func openPositions(dir string, streams int) (*positions, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("replication: %w", err)
	}
	p := &positions{path: filepath.Join(dir, positionsFile), seq: make([]uint64, streams),
		marks: make([][]mark, streams), since: make([]time.Time, streams)}
	b, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("replication: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		i, seq, marks, ok := parsePosition(sc.Text())
		if !ok {
			return nil, fmt.Errorf("%w: %s line %d: want `MBF_LOG_NN SEQ` and pairs ` SEQ ID`", ErrEntry, p.path, line)
		}
		if i >= 0 && i < streams {
			p.seq[i], p.marks[i] = seq, marks
		}
	}
	return p, sc.Err()
}

// parsePosition parses one line of the positions file.
func parsePosition(line string) (stream int, seq uint64, marks []mark, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 || len(f)%2 != 0 {
		return 0, 0, nil, false
	}
	if _, err := fmt.Sscanf(f[0], "MBF_LOG_%d", &stream); err != nil {
		return 0, 0, nil, false
	}
	seq, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, 0, nil, false
	}
	for j := 2; j < len(f); j += 2 {
		s, err := strconv.ParseUint(f[j], 10, 64)
		if err != nil {
			return 0, 0, nil, false
		}
		marks = append(marks, mark{seq: s, id: f[j+1]})
	}
	return stream, seq, marks, true
}

// get is stream i's recorded position.
func (p *positions) get(i int) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq[i]
}

// marksOf is a copy of stream i's marks, newest first.
func (p *positions) marksOf(i int) []mark {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.marks[i])
}

// newest is stream i's newest mark, false when it has none.
func (p *positions) newest(i int) (mark, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.marks[i]) == 0 {
		return mark{}, false
	}
	return p.marks[i][0], true
}

// set records stream i at seq, durably; id, when not "", is the
// Nats-Msg-Id of the message at seq: it becomes the newest mark (a new
// one when the newest is markSpacing old, else in its place). With id
// "" (a bootstrap, a forgotten position) the stream keeps no mark.
func (p *positions) set(i int, seq uint64, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq[i] = seq
	switch {
	case id == "":
		p.marks[i] = nil
	case len(p.marks[i]) > 0 && time.Since(p.since[i]) < markSpacing:
		p.marks[i][0] = mark{seq: seq, id: id}
	default:
		p.marks[i] = append([]mark{{seq: seq, id: id}}, p.marks[i][:min(len(p.marks[i]), marksKept-1)]...)
		p.since[i] = time.Now()
	}
	return p.write()
}

// rewind records stream i at seq, below its position, durably, keeping
// the marks at or below seq.
func (p *positions) rewind(i int, seq uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq[i] = seq
	p.marks[i] = slices.DeleteFunc(p.marks[i], func(m mark) bool { return m.seq > seq })
	return p.write()
}

// write replaces the file with every stream's line; p.mu held.
func (p *positions) write() error {
	var b bytes.Buffer
	for j, s := range p.seq {
		fmt.Fprintf(&b, "%s %d", Layout{}.StreamName(j), s)
		for _, m := range p.marks[j] {
			fmt.Fprintf(&b, " %d %s", m.seq, m.id)
		}
		b.WriteByte('\n')
	}
	if err := durable.WriteFile(p.path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("replication: record position: %w", err)
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
		if err := p.set(st, 0, ""); err != nil {
			return nil, err
		}
	}
	return old, nil
}
