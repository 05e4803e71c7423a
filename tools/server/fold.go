package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Folding hash-tagged keys (Config.FoldHashtags, serve --fold-hashtags;
// off by default). A key prefix{tag}suffix with a non-empty hash tag
// (Redis's rule, cluster.HashTag) is kept in the filter of the bucket
// b = slot / (16384/B) of the name prefix{}suffix, one filter (a scaling
// set) shared by every key of that name in the bucket's slots, named by
// keyname.Fold (seen:{example.com} with B = 64: seen:%7B%7D@b33.bfset).
// An item x of the key is the element uvarint(len(tag)) ‖ tag ‖ x of
// the bucket's filter: an item added under one tag never tests present
// under another (beyond the false-positive rate). Commands whose answer
// would describe the whole bucket rather than the key are refused
// (foldWhy); the README has the table.

// DefaultFoldBuckets is the number of buckets of slots when folding.
const DefaultFoldBuckets = 64

// foldMarker is the file in the data directory that records the
// folding it is served with, so that a restart with other flags, which
// would make folded keys read absent, is refused.
const foldMarker = "FOLDING"

// tagged reports whether key has a non-empty hash tag.
func tagged(key []byte) bool { return len(cluster.HashTag(key)) < len(key) }

// fold returns where key lives when this server folds it.
func (s *Server) fold(key []byte) (keyname.Folded, bool, error) {
	if !s.cfg.FoldHashtags {
		return keyname.Folded{}, false, nil
	}
	return keyname.Fold(key, s.cfg.FoldBuckets)
}

// filterOf returns the stem of the filter that holds key's items and
// the view a command must use of it: the filter itself, or for a folded
// key the view that puts the key's tag in front of each item. A folded
// key's bucket must scale: create with expansion 0 is errFoldFixed.
func (c *client) filterOf(key []byte, create *store.Spec) (string, func(store.Bloom) store.Bloom, error) {
	f, ok, err := c.s.fold(key)
	switch {
	case err != nil:
		return "", nil, err
	case !ok:
		stem, err := c.stemOf(key)
		return stem, func(b store.Bloom) store.Bloom { return b }, err
	case create != nil && create.Expansion == 0 && create.Window == 0:
		return "", nil, errFoldFixed
	}
	prefix := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(f.Tag)), uint64(len(f.Tag)))
	prefix = append(prefix, f.Tag...)
	return f.Stem, func(b store.Bloom) store.Bloom { return foldedBloom{Bloom: b, prefix: prefix} }, nil
}

// foldedBloom is a folded key's view of its bucket's filter: each item
// x is the element prefix ‖ x, prefix = uvarint(len(tag)) ‖ tag, which no
// other tag's element can equal. Only the item calls are meant to be
// used through it (foldRefusal refuses the others).
type foldedBloom struct {
	store.Bloom
	prefix []byte
}

func (f foldedBloom) elem(item []byte) []byte {
	return append(append(make([]byte, 0, len(f.prefix)+len(item)), f.prefix...), item...)
}

// elemBuf holds the elements of a batch call; elemBufs recycles them
// (the filters do not keep the keys they are given past a call).
type elemBuf struct {
	bytes []byte
	elems [][]byte
}

var elemBufs = sync.Pool{New: func() any { return new(elemBuf) }}

// batch runs call on the elements of items.
func (f foldedBloom) batch(items [][]byte, call func(elems [][]byte) error) error {
	eb := elemBufs.Get().(*elemBuf)
	defer elemBufs.Put(eb)
	eb.bytes, eb.elems = eb.bytes[:0], eb.elems[:0]
	for _, it := range items {
		eb.bytes = append(append(eb.bytes, f.prefix...), it...)
	}
	off := 0
	for _, it := range items {
		end := off + len(f.prefix) + len(it)
		eb.elems = append(eb.elems, eb.bytes[off:end:end])
		off = end
	}
	return call(eb.elems)
}

func (f foldedBloom) TestAndAdd(item []byte) (bool, error) { return f.Bloom.TestAndAdd(f.elem(item)) }
func (f foldedBloom) Test(item []byte) (bool, error)       { return f.Bloom.Test(f.elem(item)) }
func (f foldedBloom) TestAndAddBatch(items [][]byte, present []bool) error {
	return f.batch(items, func(elems [][]byte) error { return f.Bloom.TestAndAddBatch(elems, present) })
}
func (f foldedBloom) TestBatch(items [][]byte, present []bool) error {
	return f.batch(items, func(elems [][]byte) error { return f.Bloom.TestBatch(elems, present) })
}

// reserve is BF.RESERVE's work. A plain key gets a new filter
// (ErrKeyExists if it has one). A folded key's bucket gets a scaling set
// from spec when it has none; when it has one, the key is ready if that
// set's error rate is at most spec's (errFoldReserve otherwise): a
// bucket does not record which keys it holds, so "item exists" could not
// be told from a new key, and a crawler reserving each host it meets
// wants OK.
func (s *Server) reserve(key []byte, spec store.Spec) error {
	f, ok, err := s.fold(key)
	switch {
	case err != nil:
		return err
	case !ok:
		return s.store.Reserve(key, spec)
	case spec.Expansion == 0:
		return errFoldFixed
	}
	e, err := s.store.Acquire(f.Stem, &spec)
	if err != nil {
		return err
	}
	defer s.store.Release(e, false)
	st, ok := e.Bloom().(store.Set)
	if !ok {
		return fmt.Errorf("%w: the bucket's filter is a fixed file", errFoldReserve)
	}
	info, err := st.Info()
	if err != nil {
		return err
	}
	if info.Kind != "scalable" || info.P > spec.P*(1+1e-9) {
		return fmt.Errorf("%w: the bucket's filter is a %s set at error rate %g, asked %g", errFoldReserve, info.Kind, info.P, spec.P)
	}
	return nil
}

// foldThrough lists the keyed commands that work on a folded key
// through its bucket's filter.
var foldThrough = map[string]bool{"bf.add": true, "bf.madd": true, "bf.insert": true,
	"bf.exists": true, "bf.mexists": true, "bf.reserve": true}

// foldWhy says why a keyed command is refused on a folded key; a keyed
// command in neither table is refused as not supported.
var foldWhy = map[string]string{
	"bf.card":           "would count the items of every key of its bucket",
	"bf.info":           "would describe the filter every key of its bucket shares",
	"del":               "would delete every key of its bucket",
	"exists":            "cannot be answered: a bucket's filter does not record which keys it holds",
	"type":              "cannot be answered: a bucket's filter does not record which keys it holds",
	"bf.scandump":       "would dump every key of its bucket",
	"bf.loadchunk":      "would replace every key of its bucket",
	"mbf.reservewindow": "would make the set every key of its bucket shares windowed",
	"rename":            "would rename every key of its bucket",
	"renamenx":          "would rename every key of its bucket",
	"memory|usage":      "would measure the filter every key of its bucket shares",
	"mbf.merge":         "would merge into or from the filter every key of its bucket shares",
	"expire":            "would expire every key of its bucket",
	"pexpire":           "would expire every key of its bucket",
	"expireat":          "would expire every key of its bucket",
	"pexpireat":         "would expire every key of its bucket",
	"persist":           "would persist every key of its bucket",
	"ttl":               "cannot be answered: a bucket's filter does not record which keys it holds",
	"pttl":              "cannot be answered: a bucket's filter does not record which keys it holds",
	"expiretime":        "cannot be answered: a bucket's filter does not record which keys it holds",
	"pexpiretime":       "cannot be answered: a bucket's filter does not record which keys it holds",
}

// foldRefusal returns the error reply of a keyed command that must not
// run on a folded key among its keys, or "".
func (s *Server) foldRefusal(cmd *command, args [][]byte) string {
	if !s.cfg.FoldHashtags || cmd.first == 0 || foldThrough[cmd.name] {
		return ""
	}
	for i, last := cmd.first, cmd.lastKey(len(args)); i <= last; i += cmd.step {
		if tagged(args[i]) {
			why, ok := foldWhy[cmd.name]
			if !ok {
				why = "is not supported"
			}
			return fmt.Sprintf("ERR %s of a folded key ('%s') %s (--fold-hashtags: keys with a {hash tag} share one filter per name and bucket of slots)",
				strings.ToUpper(cmd.name), clip(args[i]), why)
		}
	}
	return ""
}

// checkFolding refuses a folding configuration other than the one the
// data directory was served with (recorded in its foldMarker file),
// and records it on first use. Errors wrap ErrFoldConfig.
func checkFolding(cfg *Config) error {
	if cfg.FoldBuckets <= 0 || cfg.FoldBuckets > cluster.Slots || cfg.FoldBuckets&(cfg.FoldBuckets-1) != 0 {
		return fmt.Errorf("server: %w: %d buckets: give a power of two from 1 to %d", ErrFoldConfig, cfg.FoldBuckets, cluster.Slots)
	}
	if cfg.FoldHashtags && cfg.DefaultExpansion == 0 {
		return fmt.Errorf("server: %w: a folded bucket is shared by many keys and must scale: default expansion 0 is refused", ErrFoldConfig)
	}
	path := filepath.Join(cfg.Dir, foldMarker)
	want := fmt.Sprintf("fold-buckets %d\n", cfg.FoldBuckets)
	got, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && cfg.FoldHashtags:
		if err := noTaggedKeys(cfg.Dir); err != nil {
			return err
		}
		return writeMarker(cfg.Dir, []byte(want))
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("server: %w", err)
	case !cfg.FoldHashtags || string(got) != want:
		return fmt.Errorf("server: %w: %s was served with folding (%s): its folded keys would read absent otherwise; start it with --fold-hashtags --fold-buckets as recorded",
			ErrFoldConfig, cfg.Dir, strings.TrimSpace(string(got)))
	}
	return nil
}

// writeMarker writes b as dir's FOLDING record durably (the file, then
// the directory, fsynced), so that a crash soon after the first folded
// add cannot leave its buckets without the record that protects them.
func writeMarker(dir string, b []byte) error {
	if err := durable.WriteFile(filepath.Join(dir, foldMarker), b, 0o644); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// noTaggedKeys refuses to start folding in a directory that holds
// filters of hash-tagged keys of their own: folded, those keys would
// read from their buckets, and their items would test absent.
func noTaggedKeys(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	for _, de := range ents {
		if key, _, ok := keyname.KeyOf(de.Name()); ok && tagged([]byte(key)) {
			return fmt.Errorf("server: %w: %s holds filters of keys with a {hash tag} ('%s'), which folding would hide (their items would test absent): serve it without --fold-hashtags, or move them out",
				ErrFoldConfig, dir, clip([]byte(key)))
		}
	}
	return nil
}

// bucketsToMove returns the stems of the bucket filters of this node
// that hold a slot of rs, which MBF.MIGRATE copies whole (the elements
// carry their tag, so the target's copy answers right for its slots
// and never for others'). A bucket whose filter dir already has is
// refused (errFoldMigrate) before anything is copied: the target may
// own other slots of that bucket, and a copy over its filter would drop
// their adds.
func (s *Server) bucketsToMove(rs []cluster.Range, dir string) ([]string, error) {
	ents, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return nil, err
	}
	width := cluster.Slots / s.cfg.FoldBuckets
	var out []string
	for _, de := range ents {
		_, b, set, ok := keyname.FoldedOf(de.Name())
		if !ok || set != de.IsDir() || !overlaps(b*width, (b+1)*width-1, rs) {
			continue
		}
		stem, _, _ := keyname.Split(de.Name())
		for _, suffix := range []string{keyname.FileSuffix, keyname.SetSuffix} {
			if _, err := os.Lstat(filepath.Join(dir, stem+suffix)); err == nil {
				return nil, fmt.Errorf("%w: a bucket to copy exists in the destination, %s (its node may own other slots of the bucket: a copy would drop their adds; move slot ranges aligned to buckets, or remove a stale copy)",
					errFoldMigrate, filepath.Join(dir, stem+suffix))
			}
		}
		out = append(out, stem)
	}
	return out, s.sameFolding(dir, len(out) > 0)
}

// sameFolding refuses an MBF.MIGRATE into dir when dir's foldMarker
// differs from this node's (its folded keys, or ours, would read absent
// there). When dir has none and buckets are copied, this node's is
// written there, so that a staging copy carries it (and a node serving
// dir without folding refuses its next start instead of hiding them).
func (s *Server) sameFolding(dir string, buckets bool) error {
	ours, err := os.ReadFile(filepath.Join(s.cfg.Dir, foldMarker))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	theirs, err := os.ReadFile(filepath.Join(dir, foldMarker))
	switch {
	case errors.Is(err, fs.ErrNotExist) && buckets:
		return writeMarker(dir, ours)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case string(theirs) != string(ours):
		return fmt.Errorf("%w: %s is served with folding %q, this node with %q", errFoldMigrate, dir,
			strings.TrimSpace(string(theirs)), strings.TrimSpace(string(ours)))
	}
	return nil
}

// overlaps reports whether slots lo..hi meet a range of rs.
func overlaps(lo, hi int, rs []cluster.Range) bool {
	for _, r := range rs {
		if lo <= r.End && r.Start <= hi {
			return true
		}
	}
	return false
}
