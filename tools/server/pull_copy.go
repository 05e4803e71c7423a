package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Copying one key, set or bucket of the primary during a pull (pull_fetch.go):
// its dump is fetched iterator by iterator and ORed into the replica's
// copy, in place or through a temporary file.

// Pulls go by batches of pullBatch keys: one pipeline fetches their
// headers (BF.SCANDUMP key 0), a second the whole bit array of those of
// at most smallDump bytes (BF.SCANDUMP key 1), so that a primary of many
// small filters costs two round trips a batch rather than two a key.
const (
	pullBatch = 128
	smallDump = 64 << 10
)

// dump is the dump of one file of the primary in progress: the command
// prefix that asks for it iterator by iterator, the replies already
// received by a pipeline, by iterator, and the largest piece asked for
// (the puller's own chunkSize, so that a piece fits its request limit
// whatever the primary's).
type dump struct {
	do     func(ctx context.Context, args ...any) *redis.Cmd // the primary's client's Do
	prefix []any
	early  map[int64]*redis.Cmd
	chunk  uint64
}

// prefetch sends the pipelines of a batch of keys (see pullBatch), the
// pieces in chunks of at most chunk bytes, and returns their replies,
// per key, by iterator.
func prefetch(ctx context.Context, rdb *redis.Client, keys []string, chunk uint64) []map[int64]*redis.Cmd {
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
			early[i][1] = pipe.Do(ctx, "BF.SCANDUMP", k, 1, "CHUNKSIZE", chunk)
		}
	}
	if pipe.Len() > 0 {
		_, _ = pipe.Exec(ctx)
	}
	return early
}

// pullKey pulls one key: a fixed filter by BF.SCANDUMP (d), a set (whose
// BF.SCANDUMP starts with a set's chunk, or is refused by an older
// primary) by MBF.SETDUMP.
func (s *Server) pullKey(ctx context.Context, rdb *redis.Client, d *dump, key []byte) error {
	stem, err := keyname.Stem(key)
	if err != nil {
		return err
	}
	file, dir := s.store.StemPaths(stem)
	hdr, err := d.header(ctx)
	var rerr redis.Error
	if isSetChunk(hdr) || errors.As(err, &rerr) && strings.Contains(rerr.Error(), setDumpRefused) {
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
	done, err := withFixed(s.store, stem, h, func(f store.Fixed) error {
		return d.pieces(ctx, h.ByteSize, func(off int64, data []byte) error { return f.UnionPiece(h, uint64(off), data) })
	})
	if done || err != nil {
		return err
	}
	l, err := d.load(ctx, hdr, s.store, file)
	if err != nil {
		return err
	}
	replaced, err := s.absorb(stem, l)
	if replaced && err == nil {
		s.cfg.Log.Printf("pull: key %q has another shape or kind on the primary (deleted and re-created there): replaced by the primary's", key)
	}
	return err
}

// fetchFile copies a filter file of the primary by its dump d (BF.SCANDUMP
// key, or MBF.SETDUMP key file) into a new load of path in st's
// directory.
func fetchFile(ctx context.Context, d *dump, st *store.Store, path string) (*load, error) {
	hdr, err := d.header(ctx)
	if err != nil {
		return nil, err
	}
	return d.load(ctx, hdr, st, path)
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
// load of path in st's directory, admitted by st's limits as the
// puller's (owner 0, no client's id).
func (d *dump) load(ctx context.Context, hdr []byte, st *store.Store, path string) (*load, error) {
	l, err := newLoad(st.Limiter(), 0, st.Dir(), path, hdr, ".pull*")
	if err != nil {
		return nil, err
	}
	if err := d.pieces(ctx, l.size, l.write); err != nil {
		l.Abort()
		return nil, err
	}
	return l, nil
}

// pieces gets the dump's bit array of size bytes, iterator by iterator
// from 1, and hands each piece to write with its offset. Pieces must
// follow each other exactly, be no larger than asked for and end with
// the bit array (errBadData otherwise; write refuses a piece beyond it).
func (d *dump) pieces(ctx context.Context, size uint64, write func(off int64, data []byte) error) error {
	for it, got := int64(1), uint64(0); got < size; {
		data, next, err := d.step(ctx, it)
		if err == nil && (len(data) == 0 || uint64(len(data)) > d.chunk || next != it+int64(len(data))) {
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
		cmd = d.do(ctx, append(slices.Clone(d.prefix), it, "CHUNKSIZE", d.chunk)...)
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
		var lock *os.File
		if target, lock, err = store.LockedTempDir(s.store.Dir(), dir, "pull"); err != nil {
			return err
		}
		defer os.RemoveAll(target)
		defer lock.Close()
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
		return installSet(s.store, stem, target)
	}
	return nil
}

// pullLayer fetches the layer file of the set named by name into path:
// ORed into the file there, or linked there when there is none.
func (s *Server) pullLayer(ctx context.Context, rdb *redis.Client, name []any, file, path string) error {
	l, err := fetchFile(ctx, &dump{do: rdb.Do, prefix: append(slices.Clone(name), file), chunk: s.chunkSize()}, s.store, path)
	if err != nil {
		return err
	}
	defer l.Abort()
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
