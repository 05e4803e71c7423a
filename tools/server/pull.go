package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// A replica pulls its primary every Config.PullInterval, and on
// MBF.PULL: it lists the primary's keys with SCAN, and for each key of a
// slot the primary owns copies the filter with BF.SCANDUMP (a set layer
// by layer with MBF.SETDUMP) into a hidden temporary file, then ORs it
// into its own copy (mmapbloom's Filter.Union; a set's MANIFEST is
// adopted last, AdoptSetManifest). A dump reads each piece when asked,
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

func init() {
	register(&command{name: "mbf.pull", arity: 1, flags: []string{"admin"}, run: mbfPull})
}

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
		if s.cluster.Load().me.Primary == nil {
			continue
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
		p.rdb = redis.NewClient(&redis.Options{Addr: p.addr, Password: s.cfg.Password, Protocol: 2,
			MaxRetries: -1, PoolSize: 1, DialTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
			DisableIdentity: true})
	}
	start := time.Now()
	n, err := s.pullAll(ctx, p.rdb, cs)
	if err != nil {
		err = fmt.Errorf("pull from %s: %w", p.addr, err)
	}
	p.record(start, n, err)
	return n, err
}

// pullAll pulls every key of the primary's slots, going on past a key
// that fails; the error names the first failure.
func (s *Server) pullAll(ctx context.Context, rdb *redis.Client, cs *clusterState) (int, error) {
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
		if cs.m.Owner(cluster.KeySlot([]byte(k))) == cs.me.Primary {
			mine = append(mine, k) // else a stale copy on the primary, of a slot it gave away
		}
	}
	n, failed := 0, 0
	var first error
	for _, stem := range s.bucketsOf(buckets, cs) {
		_, dir := s.store.stemPaths(stem)
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
		early := prefetch(ctx, rdb, batch)
		for j, k := range batch {
			if err := s.pullKey(ctx, rdb, &dump{rdb.Do, []any{"BF.SCANDUMP", k}, early[j]}, []byte(k)); err != nil {
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
// slot this replica's primary owns.
func (s *Server) bucketsOf(stems []string, cs *clusterState) []string {
	var out []string
	width := cluster.Slots / max(s.cfg.FoldBuckets, 1)
	for _, stem := range stems {
		_, b, isSet, ok := FoldedOf(stem + setSuffix)
		if !ok || !isSet || b*width >= cluster.Slots {
			continue // not a bucket: ignored, as a hostile listing
		}
		for slot := b * width; slot < (b+1)*width; slot++ {
			if cs.m.Owner(slot) == cs.me.Primary {
				out = append(out, stem)
				break
			}
		}
	}
	return out
}

// listKeys lists the primary's keys with SCAN. The server's cursor is a
// position in its sorted key list, so it only grows until it ends at 0;
// a cursor that does not grow is errBadData (a loop).
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

// Pulls go by batches of pullBatch keys: one pipeline fetches their
// headers (BF.SCANDUMP key 0), a second the whole bit array of those of
// at most smallDump bytes (BF.SCANDUMP key 1), so that a primary of many
// small filters costs two round trips a batch rather than two a key.
const (
	pullBatch = 128
	smallDump = 64 << 10
)

// dump is the dump of one file of the primary in progress: the command
// prefix that asks for it iterator by iterator, and the replies already
// received by a pipeline, by iterator.
type dump struct {
	do     func(ctx context.Context, args ...any) *redis.Cmd // the primary's client's Do
	prefix []any
	early  map[int64]*redis.Cmd
}

// prefetch sends the pipelines of a batch of keys (see pullBatch) and
// returns their replies, per key, by iterator.
func prefetch(ctx context.Context, rdb *redis.Client, keys []string) []map[int64]*redis.Cmd {
	early := make([]map[int64]*redis.Cmd, len(keys))
	pipe := rdb.Pipeline()
	for i, k := range keys {
		early[i] = map[int64]*redis.Cmd{0: pipe.Do(ctx, "BF.SCANDUMP", k, 0)}
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own error
	pipe = rdb.Pipeline()
	for i, k := range keys {
		hdr, next, err := parseDump(early[i][0])
		if err != nil || next != 1 {
			continue
		}
		if h, err := format.Decode(hdr); err == nil && h.ByteSize <= smallDump {
			early[i][1] = pipe.Do(ctx, "BF.SCANDUMP", k, 1)
		}
	}
	if pipe.Len() > 0 {
		_, _ = pipe.Exec(ctx)
	}
	return early
}

// pullKey pulls one key: a fixed filter by BF.SCANDUMP (d), a set (which
// BF.SCANDUMP refuses) by MBF.SETDUMP.
func (s *Server) pullKey(ctx context.Context, rdb *redis.Client, d *dump, key []byte) error {
	stem, err := Stem(key)
	if err != nil {
		return err
	}
	file, dir := s.store.stemPaths(stem)
	hdr, err := d.header(ctx)
	var rerr redis.Error
	if errors.As(err, &rerr) && strings.Contains(rerr.Error(), setDumpRefused) {
		return s.pullSet(ctx, rdb, []any{"MBF.SETDUMP", key}, stem, dir)
	}
	if err != nil {
		return err
	}
	h, err := format.Decode(hdr)
	if err != nil || len(hdr) != format.HeaderSize {
		return fmt.Errorf("%w: not a filter header (%v)", errBadData, err)
	}
	// The common case, a key the replica has: ORed in place, piece by piece.
	done, err := s.store.withFixed(stem, h, func(f fixed) error {
		return d.pieces(ctx, h.ByteSize, func(off int64, data []byte) error { return f.UnionPiece(h, uint64(off), data) })
	})
	if done || err != nil {
		return err
	}
	l, err := d.load(ctx, hdr, s.store.dir, file)
	if err != nil {
		return err
	}
	replaced, err := s.store.absorb(stem, l)
	if replaced && err == nil {
		s.cfg.Log.Printf("pull: key %q has another shape or kind on the primary (deleted and re-created there): replaced by the primary's", key)
	}
	return err
}

// fetchFile copies a filter file of the primary by its dump d (BF.SCANDUMP
// key, or MBF.SETDUMP key file) into a new load of path in dir.
func fetchFile(ctx context.Context, d *dump, dir, path string) (*load, error) {
	hdr, err := d.header(ctx)
	if err != nil {
		return nil, err
	}
	return d.load(ctx, hdr, dir, path)
}

// header returns the dump's header (iterator 0, next iterator 1).
func (d *dump) header(ctx context.Context) ([]byte, error) {
	hdr, next, err := d.step(ctx, 0)
	if err == nil && next != 1 {
		err = fmt.Errorf("%w: header with next iterator %d", errBadData, next)
	}
	return hdr, err
}

// load copies the bit array of the dump whose header is hdr into a new
// load of path in dir.
func (d *dump) load(ctx context.Context, hdr []byte, dir, path string) (*load, error) {
	l, err := newLoad(dir, path, hdr, ".pull*")
	if err != nil {
		return nil, err
	}
	if err := d.pieces(ctx, l.size, l.write); err != nil {
		l.abort()
		return nil, err
	}
	return l, nil
}

// pieces gets the dump's bit array of size bytes, iterator by iterator
// from 1, and hands each piece to write with its offset. Pieces must
// follow each other exactly and end with the bit array (errBadData
// otherwise; write refuses a piece beyond it).
func (d *dump) pieces(ctx context.Context, size uint64, write func(off int64, data []byte) error) error {
	for it, got := int64(1), uint64(0); got < size; {
		data, next, err := d.step(ctx, it)
		if err == nil && (len(data) == 0 || next != it+int64(len(data))) {
			err = fmt.Errorf("%w: piece at iterator %d: %d bytes, next iterator %d", errBadData, it, len(data), next)
		}
		if err == nil {
			err = write(it-1, data)
		}
		if err != nil {
			return err
		}
		got += uint64(len(data))
		it = next
	}
	return nil
}

// step returns the reply to iterator it, received already or asked now.
func (d *dump) step(ctx context.Context, it int64) ([]byte, int64, error) {
	cmd := d.early[it]
	if cmd == nil {
		cmd = d.do(ctx, append(slices.Clone(d.prefix), it)...)
	}
	return parseDump(cmd)
}

// parseDump checks the shape of a dump's reply, [next iterator, piece],
// and returns both.
func parseDump(cmd *redis.Cmd) ([]byte, int64, error) {
	v, err := cmd.Slice()
	if err != nil {
		return nil, 0, err
	}
	if len(v) == 2 {
		next, ok1 := v[0].(int64)
		data, ok2 := v[1].(string)
		if ok1 && ok2 {
			return []byte(data), next, nil
		}
	}
	return nil, 0, fmt.Errorf("%w: dump reply %.100v", errBadData, v)
}

// pullSet pulls a set named by name (MBF.SETDUMP key, or MBF.BUCKETDUMP
// stem for a bucket of folded keys) into its directory dir: each layer
// file the primary's MANIFEST lists is fetched, then ORed into the
// replica's layer of that name or linked in as a new layer; the MANIFEST
// is adopted last. A set the replica lacks is built in a hidden
// directory and renamed into place. stem is the set's file-name stem.
func (s *Server) pullSet(ctx context.Context, rdb *redis.Client, name []any, stem, dir string) error {
	v, err := rdb.Do(ctx, name...).StringSlice()
	if err != nil {
		return err
	}
	if len(v) < 2 {
		return fmt.Errorf("%w: MBF.SETDUMP listed no layer", errBadData)
	}
	raw, files := v[0], v[1:]
	target := dir
	_, err = os.Stat(dir)
	fresh := errors.Is(err, os.ErrNotExist)
	if fresh {
		if target, err = os.MkdirTemp(s.store.dir, "."+filepath.Base(dir)+".pull*"); err != nil {
			return err
		}
		defer os.RemoveAll(target)
		if err := os.Chmod(target, 0o755); err != nil { // as the library creates sets
			return err
		}
	}
	for _, f := range files {
		if !layerName(f) {
			return fmt.Errorf("%w: layer file name %.100q", errBadData, f)
		}
		if err := s.pullLayer(ctx, rdb, name, f, filepath.Join(target, f)); err != nil {
			return fmt.Errorf("layer %s: %w", f, err)
		}
	}
	if err := mmapbloom.AdoptSetManifest(target, []byte(raw)); err != nil {
		return err
	}
	if fresh {
		return s.store.installSet(stem, target)
	}
	return nil
}

// pullLayer fetches the layer file of the set named by name into path:
// ORed into the file there, or linked there when there is none.
func (s *Server) pullLayer(ctx context.Context, rdb *redis.Client, name []any, file, path string) error {
	l, err := fetchFile(ctx, &dump{do: rdb.Do, prefix: append(slices.Clone(name), file)}, s.store.dir, path)
	if err != nil {
		return err
	}
	defer l.abort()
	if err := l.link(); !errors.Is(err, ErrKeyExists) {
		return err
	}
	return unionFiles(path, l.f.Name())
}

// unionFiles ORs the filter file src into the filter file dst.
func unionFiles(dst, src string) error {
	sf, err := mmapbloom.Open(src, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%w: %w", errBadData, err)
	}
	defer sf.Close()
	df, err := mmapbloom.Open(dst, nil)
	if err != nil {
		return err
	}
	return errors.Join(df.Union(sf), df.Close())
}

// layerName reports whether f is a set layer's file name, L<digits>.bloom.
func layerName(f string) bool {
	d, ok1 := strings.CutPrefix(f, "L")
	d, ok2 := strings.CutSuffix(d, ".bloom")
	return ok1 && ok2 && d != "" && strings.Trim(d, "0123456789") == ""
}
