package replication

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memApplier records what it applies, by stream.
type memApplier struct {
	mu        sync.Mutex
	items     map[string]int // "key\x00item" -> times applied
	cmds      []string
	seqs      map[[2]uint64]int // (stream, seq) -> times its message was applied
	syncs     int
	failNext  int    // Apply errors left to return
	covered   uint64 // what Bootstrap answers
	bootstrap int
}

func newMem() *memApplier {
	return &memApplier{items: map[string]int{}, seqs: map[[2]uint64]int{}}
}

func (m *memApplier) Apply(stream int, seq uint64, origin string, recs []Record, results []any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failNext > 0 {
		m.failNext--
		return fmt.Errorf("injected apply failure")
	}
	m.seqs[[2]uint64{uint64(stream), seq}]++
	for i, r := range recs {
		if r.Op == OpCommand {
			m.cmds = append(m.cmds, string(r.Fields[0]))
			if results != nil {
				results[i] = fmt.Sprintf("%s@%d by %s", r.Fields[0], seq, origin)
			}
			continue
		}
		for _, it := range r.Fields[1:] {
			m.items[string(r.Fields[0])+"\x00"+string(it)]++
		}
	}
	return nil
}

func (m *memApplier) Sync(int) error {
	m.mu.Lock()
	m.syncs++
	m.mu.Unlock()
	return nil
}

func (m *memApplier) Bootstrap(context.Context, int) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bootstrap++
	return m.covered, nil
}

func (m *memApplier) has(key, item string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.items[key+"\x00"+item] > 0
}

// cluster starts n embedded servers and returns their client URLs.
func cluster(t *testing.T, n int) ([]*Embedded, []string) {
	t.Helper()
	if Embedded32Bit {
		t.Skip("no embedded nats-server on a 32-bit platform (Embedded32Bit)")
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i+1)
	}
	srv, err := StartLocalCluster(t.TempDir(), names)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, s := range srv {
			s.Shutdown()
		}
	})
	urls := make([]string, n)
	for i, s := range srv {
		urls[i] = s.ClientURL()
	}
	return srv, urls
}

// openLog opens node's log on url with streams streams and replicas.
func openLog(t *testing.T, url, node string, layout Layout, dir string, tweak func(*Config)) *Log {
	t.Helper()
	cfg := Config{URLs: []string{url}, Node: node, Layout: layout, Dir: dir,
		Checkpoint: 50 * time.Millisecond, FetchWait: 100 * time.Millisecond, PublishTimeout: 10 * time.Second}
	if tweak != nil {
		tweak(&cfg)
	}
	l, err := Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func addRec(key string, items ...string) Record {
	r := Record{Op: OpAdd, Fields: [][]byte{[]byte(key)}}
	for _, it := range items {
		r.Fields = append(r.Fields, []byte(it))
	}
	return r
}
