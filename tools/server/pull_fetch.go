package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// A replica pulls its primary every Config.PullInterval, and on
// MBF.PULL: it lists the primary's keys with SCAN (and, when both fold
// hash-tagged keys, the buckets' sets with MBF.BUCKETS), and for each key
// of a slot the primary owns copies the filter with BF.SCANDUMP (a set
// layer by layer with MBF.SETDUMP or MBF.BUCKETDUMP) and ORs it into its
// own copy, in place (Filter.UnionPiece) or through a temporary file
// (pull_copy.go; a set's MANIFEST is adopted last, AdoptSetManifest). A
// dump reads each piece when asked,
// so it holds every bit set on the primary before the pull started:
// once a pull completes without error, every add the primary
// acknowledged before that pull began answers present on the replica.
// Bits are only ever ORed in, so a repeated or failed pull loses
// nothing; a key deleted on the primary stays on the replica (see the
// README).

// DefaultPullInterval is Config.PullInterval's default.
const DefaultPullInterval = time.Second

// errFolding refuses pulls when the primary and the replica do not fold
// hash-tagged keys alike (fold.go): the replica would look for folded
// keys where the primary does not keep them.
var errFolding = errors.New("a replica must fold hash-tagged keys as its primary does (the same --fold-hashtags and --fold-buckets)")

// errNotReplica refuses MBF.PULL on a node that is not a replica.
var errNotReplica = errors.New("this node is not a replica (no replica-of line for it in the cluster config)")

// MBF.PULL: runs one pull now, after any pull in progress, and answers
// the number of keys pulled, or the pull's first error.
func mbfPull(c *client, _ [][]byte) {
	if c.s.cluster.Load() == nil {
		c.w.WriteError(clusterDisabled)
		return
	}
	n, err := c.s.pull(c.s.puller.ctx)
	if err != nil {
		c.w.WriteError("ERR " + err.Error())
		return
	}
	c.w.WriteInt(n)
}

// puller is a replica's pulling state.
type puller struct {
	ctx    context.Context // canceled by close
	cancel context.CancelFunc
	done   chan struct{} // closed when the loop ends

	mu   sync.Mutex    // held by the pull running
	rdb  *redis.Client // the connection to the primary at addr
	addr string

	st   sync.Mutex
	stat pullStatus
}

// pullStatus is what INFO replication reports of the pulls.
type pullStatus struct {
	pulls, errors      int64
	lastStart, lastEnd time.Time // of the last pull without error
	lastKeys           int
	lastErr            string // of the last pull; "" after one without error
}

func newPuller() *puller {
	ctx, cancel := context.WithCancel(context.Background())
	return &puller{ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// status returns a copy of the pull status.
func (p *puller) status() pullStatus {
	p.st.Lock()
	defer p.st.Unlock()
	return p.stat
}

// link is INFO's master_link_status: up while the last pull succeeded.
func (st pullStatus) link() string {
	if st.pulls > 0 && st.lastErr == "" {
		return "up"
	}
	return "down"
}

// ioAgo is INFO's master_last_io_seconds_ago: seconds since the end of
// the last pull without error, -1 before the first.
func (st pullStatus) ioAgo() string {
	if st.lastEnd.IsZero() {
		return "-1"
	}
	return strconv.Itoa(int(time.Since(st.lastEnd).Seconds()))
}

func unixMS(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// record notes the end of a pull started at start.
func (p *puller) record(start time.Time, keys int, err error) {
	p.st.Lock()
	defer p.st.Unlock()
	if err != nil {
		p.stat.errors++
		p.stat.lastErr = err.Error()
		return
	}
	p.stat.pulls++
	p.stat.lastStart, p.stat.lastEnd, p.stat.lastKeys, p.stat.lastErr = start, time.Now(), keys, ""
}

// close stops the loop (and cancels a pull in progress) and closes the
// connection to the primary.
func (p *puller) close() {
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rdb != nil {
		_ = p.rdb.Close()
		p.rdb = nil
	}
}

// pullLoop pulls every PullInterval while this node is a replica (the
// config may change on reload), logging errors when they change.
func (s *Server) pullLoop() {
	p := s.puller
	defer close(p.done)
	t := time.NewTicker(s.cfg.PullInterval)
	defer t.Stop()
	lastErr := ""
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		}
		if s.cluster.Load().me.Primary == nil || s.repl != nil {
			continue // with the log, replicas apply it (MBF.PULL still pulls)
		}
		_, err := s.pull(p.ctx)
		switch {
		case err != nil && err.Error() != lastErr && p.ctx.Err() == nil:
			s.cfg.Log.Printf("pull: %v (the replica keeps its data and retries)", err)
			lastErr = err.Error()
		case err == nil && lastErr != "":
			s.cfg.Log.Printf("pull: ok again")
			lastErr = ""
		}
	}
}

// pull runs one pull from this replica's primary and returns the number
// of keys pulled.
func (s *Server) pull(ctx context.Context) (int, error) {
	p := s.puller
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := s.cluster.Load()
	if cs.me.Primary == nil {
		return 0, errNotReplica
	}
	if p.rdb == nil || p.addr != cs.me.Primary.Addr {
		if p.rdb != nil {
			_ = p.rdb.Close()
		}
		p.addr = cs.me.Primary.Addr
		p.rdb = redis.NewClient(&redis.Options{Addr: p.addr, Username: s.cfg.MasterUser, Password: s.masterAuth(),
			TLSConfig: s.cfg.PullTLS, Protocol: 2, MaxRetries: -1, PoolSize: 1, DialTimeout: 5 * time.Second,
			ReadTimeout: 30 * time.Second, DisableIdentity: true})
	}
	start := time.Now()
	n, err := s.pullAll(ctx, p.rdb, cs, func(slot int) bool { return cs.m.Owner(slot) == cs.me.Primary })
	if err != nil {
		err = fmt.Errorf("pull from %s: %w", p.addr, err)
	}
	p.record(start, n, err)
	return n, err
}

// pullAll pulls every key of the slots wanted (the primary's, for a
// replica), going on past a key that fails; the error names the first
// failure.
func (s *Server) pullAll(ctx context.Context, rdb *redis.Client, cs *clusterState, wanted func(slot int) bool) (int, error) {
	buckets, err := s.pullFolding(ctx, rdb)
	if err != nil {
		return 0, err
	}
	keys, err := listKeys(ctx, rdb)
	if err != nil {
		return 0, err
	}
	mine := keys[:0]
	for _, k := range keys {
		if wanted(cluster.KeySlot([]byte(k))) {
			mine = append(mine, k) // else a stale copy on the primary, of a slot it gave away
		}
	}
	n, failed := 0, 0
	var first error
	for _, stem := range s.bucketsOf(buckets, wanted) {
		_, dir := s.store.StemPaths(stem)
		if err := s.pullSet(ctx, rdb, []any{"MBF.BUCKETDUMP", stem}, stem, dir); err != nil {
			failed++
			if first == nil {
				first = fmt.Errorf("bucket %s: %w", stem, err)
			}
			continue
		}
		n++
	}
	for i := 0; i < len(mine) && ctx.Err() == nil; i += pullBatch {
		batch := mine[i:min(i+pullBatch, len(mine))]
		early := prefetch(ctx, rdb, batch, s.chunkSize())
		for j, k := range batch {
			if err := s.pullKey(ctx, rdb, &dump{rdb.Do, []any{"BF.SCANDUMP", k}, early[j], s.chunkSize()}, []byte(k)); err != nil {
				failed++
				if first == nil {
					first = fmt.Errorf("key %q: %w", k, err)
				}
				continue
			}
			n++
		}
	}
	if first != nil {
		return n, fmt.Errorf("%d keys not pulled (%d pulled); first: %w", failed, n, first)
	}
	return n, nil
}

// pullFolding checks that the primary folds as this node does (INFO
// replication's mbf_fold_buckets, errFolding otherwise) and, when they
// fold, returns the primary's buckets' stems (MBF.BUCKETS).
func (s *Server) pullFolding(ctx context.Context, rdb *redis.Client) ([]string, error) {
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return nil, fmt.Errorf("INFO: %w", err)
	}
	theirs := "0"
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "mbf_fold_buckets:"); ok {
			theirs = v
		}
	}
	if ours := s.foldInfo()[1]; theirs != ours {
		return nil, fmt.Errorf("%w: the primary's mbf_fold_buckets is %s, this node's %s", errFolding, theirs, ours)
	}
	if theirs == "0" {
		return nil, nil
	}
	stems, err := rdb.Do(ctx, "MBF.BUCKETS").StringSlice()
	if err != nil {
		return nil, fmt.Errorf("MBF.BUCKETS: %w", err)
	}
	return stems, nil
}

// bucketsOf returns the stems of stems that name a bucket holding a
// slot wanted.
func (s *Server) bucketsOf(stems []string, wanted func(slot int) bool) []string {
	var out []string
	width := cluster.Slots / max(s.cfg.FoldBuckets, 1)
	for _, stem := range stems {
		_, b, isSet, ok := keyname.FoldedOf(stem + keyname.SetSuffix)
		if !ok || !isSet || b*width >= cluster.Slots {
			continue // not a bucket: ignored, as a hostile listing
		}
		for slot := b * width; slot < (b+1)*width; slot++ {
			if wanted(slot) {
				out = append(out, stem)
				break
			}
		}
	}
	return out
}

// listKeys lists the primary's keys with SCAN, which returns every key
// present from the listing's start to its end (generic_scan.go). The server's
// cursor is a position in the order of the keys' hashes, so it only
// grows until it ends at 0; a cursor that does not grow is errBadData (a
// loop).
func listKeys(ctx context.Context, rdb *redis.Client) ([]string, error) {
	var keys []string
	seen := map[string]bool{}
	for cursor := uint64(0); ; {
		page, next, err := rdb.Scan(ctx, cursor, "*", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("SCAN: %w", err)
		}
		for _, k := range page {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if next == 0 {
			return keys, nil
		}
		if next <= cursor {
			return nil, fmt.Errorf("SCAN: %w: cursor %d after %d", errBadData, next, cursor)
		}
		cursor = next
	}
}
