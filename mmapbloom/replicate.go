package mmapbloom

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Replication helpers: what a copy of a filter or set (a `serve`
// replica) needs to take in another copy's state without closing its own
// handles. Bloom filters under OR are a grow-only CRDT: applying a state
// twice, or an older one, never clears a bit.

// Union ORs the bits of src into f as concurrent Adds would: unlike
// Merge it needs no other handle closed, so readers and writers of f (in
// this and other processes) go on and see each bit as it is set. The
// count becomes the larger of the two counts (a copy of a filter then
// reports the count of the filter it copies), so repeating Union changes
// nothing. Both must have the same m, k, layout, hash scheme and seed
// (see Compatible). Errors: ErrMismatch, ErrInUse (src busy with an
// exclusive call), ErrReadOnly, ErrSealed, ErrClosed, ErrFileChanged.
func (f *Filter) Union(src *Filter) error {
	if err := f.Compatible(src); err != nil {
		return err
	}
	return f.run(false, true, func() error {
		return src.asSource("union", func() {
			orWords(f.words, src.words)
			f.raiseCount(src.loadCount())
		})
	})
}

// asSource runs op, which reads f's mapping from inside another
// filter's run (Merge and Union read their source), under f's shared
// lock (ErrInUse if an exclusive call holds it) and with the checks of
// run: f's state, header and last word; a fault in f's mapping marks f,
// not the other filter, broken.
func (f *Filter) asSource(what string, op func()) (err error) {
	if !f.mu.TryRLock() {
		return fmt.Errorf("mmapbloom: %s %s: source busy: %w", what, f.path, ErrInUse)
	}
	defer f.mu.RUnlock()
	if err := f.usable(false); err != nil {
		return err
	}
	defer blameLayers([]*Filter{f}, &err)
	if err := f.checkHeader(); err != nil {
		return err
	}
	atomic.LoadUint64(f.last)
	op()
	return nil
}

// UnionPiece ORs bits, the bytes at byte offset off of the bit array of
// another filter whose header is h (a piece of its dump, such as
// BF.SCANDUMP's, or of its file after the header), into f, as
// concurrent Adds would (see Union), and raises f's count to h's. So a
// copy of a filter can take in another copy piece by piece, with no
// temporary file; a piece applied twice, or an older one, clears no bit.
// h must have f's m, k, layout, hash scheme and seed (ErrMismatch), and
// the piece must lie inside the bit array (ErrInvalidM). Errors:
// ErrMismatch, ErrInvalidM, ErrReadOnly, ErrSealed, ErrClosed,
// ErrFileChanged.
func (f *Filter) UnionPiece(h format.Header, off uint64, bits []byte) error {
	if field, x, y := headerDiff(f.hdr, h); field != "" {
		return fmt.Errorf("mmapbloom: union into %s: %s differs: source %v, destination %v: %w", f.path, field, y, x, ErrMismatch)
	}
	size := min(f.hdr.ByteSize, uint64(len(f.words))*8)
	if off > size || uint64(len(bits)) > size-off {
		return fmt.Errorf("mmapbloom: union into %s: %d bytes at %d beyond the %d-byte bit array: %w", f.path, len(bits), off, size, ErrInvalidM)
	}
	return f.run(false, true, func() error {
		orBytes(f.words, off, bits)
		f.raiseCount(h.Count)
		return nil
	})
}

// orBytes ORs b into the bytes of words (little-endian, as filter files
// are) from byte offset off, with atomic ORs of whole words.
func orBytes(words []uint64, off uint64, b []byte) {
	for len(b) > 0 {
		var w [8]byte
		head := off % 8
		n := copy(w[head:], b)
		if v := binary.LittleEndian.Uint64(w[:]); v != 0 {
			atomic.OrUint64(&words[off/8], v)
		}
		b, off = b[n:], off+uint64(n)
	}
}

// orWords ORs src into dst word by word with atomic ORs, skipping zero
// words (no store, so no dirty page, where src has no bit).
func orWords(dst, src []uint64) {
	for i := range dst {
		if s := atomic.LoadUint64(&src[i]); s != 0 {
			atomic.OrUint64(&dst[i], s)
		}
	}
}

// raiseCount publishes this handle's pending adds, then sets the header
// count to c unless it is larger already. The caller is inside run.
func (f *Filter) raiseCount(c uint64) {
	f.publishCount()
	if f.count32 != nil {
		c = min(c, 1<<32-1)
		for old := atomic.LoadUint32(f.count32); uint64(old) < c; old = atomic.LoadUint32(f.count32) {
			if atomic.CompareAndSwapUint32(f.count32, old, uint32(c)) {
				return
			}
		}
		return
	}
	for old := atomic.LoadUint64(&f.head[1]); old < c; old = atomic.LoadUint64(&f.head[1]) {
		if atomic.CompareAndSwapUint64(&f.head[1], old, c) {
			return
		}
	}
}

// Manifest returns the set's MANIFEST as this call sees it (the JSON of
// format/FORMAT.md, "Filter sets") and the layer files it lists, oldest
// first: what a copy of the set needs (see AdoptSetManifest). Errors:
// ErrClosed, ErrBadSet.
func (s *Set) Manifest() (raw []byte, files []string, err error) {
	err = s.do(func(v *setView) error {
		b, err := json.Marshal(v.m)
		if err != nil {
			return fmt.Errorf("mmapbloom: encode manifest: %w", err)
		}
		raw, files = b, nil
		for _, l := range v.m.Layers {
			files = append(files, l.File)
		}
		return nil
	})
	return raw, files, err
}

// AdoptSetManifest makes the directory dir list the layers of another
// copy of a set: raw is that set's MANIFEST (from Set.Manifest), and
// every layer file it lists must be in dir already (copied, or merged
// into dir's own layer of that name with Union, by the caller).
//
// When dir is a set already, it must be the same set (same kind and
// seed, else ErrMismatch): under the set's LOCK its MANIFEST is replaced
// (atomically and durably) by raw with a generation above both, CONTROL
// is raised so that every open handle reloads at its next call, then the
// layer files the old MANIFEST listed and raw does not are unlinked. A
// raw listing the same layers changes nothing. When dir holds no
// MANIFEST, it becomes a set: MANIFEST, CONTROL and LOCK are written
// (build it under a temporary name and rename it into place). Errors:
// ErrBadSet (raw is not a valid MANIFEST, or a layer it lists is not in
// dir), ErrMismatch, I/O errors.
func AdoptSetManifest(dir string, raw []byte) error {
	m, err := manifest.Decode(raw)
	if err != nil {
		return fmt.Errorf("mmapbloom: adopt manifest: %w", err)
	}
	for _, l := range m.Layers {
		if _, err := os.Stat(filepath.Join(dir, l.File)); err != nil {
			return fmt.Errorf("mmapbloom: adopt manifest: layer %s: %w (%w)", l.File, ErrBadSet, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.Name)); errors.Is(err, fs.ErrNotExist) {
		if err := manifest.Write(dir, m); err != nil {
			return err
		}
		if err := manifest.WriteControl(dir, m.Generation); err != nil {
			return err
		}
		return mapping.WriteSynced(filepath.Join(dir, lockName), nil)
	}
	unlock, err := lockSet(dir, true)
	if err != nil {
		return err
	}
	defer unlock()
	return adoptLocked(dir, m)
}

// adoptLocked replaces dir's MANIFEST by m; the caller holds LOCK.
func adoptLocked(dir string, m *manifest.Manifest) error {
	cur, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	if cur.Kind != m.Kind || cur.Seed != m.Seed {
		return fmt.Errorf("mmapbloom: adopt manifest into %s: kind %s seed %d, not %s seed %d: %w",
			dir, cur.Kind, cur.Seed, m.Kind, m.Seed, ErrMismatch)
	}
	if sameLayers(cur, m) {
		return nil
	}
	m.Generation = max(m.Generation, cur.Generation+1)
	if err := manifest.Write(dir, m); err != nil {
		return err
	}
	ctl, err := manifest.OpenControl(dir, false)
	if err != nil {
		return err
	}
	ctl.Raise(m.Generation)
	if err := ctl.Close(); err != nil {
		return err
	}
	for _, l := range cur.Layers {
		if !m.Lists(l.File) {
			_ = os.Remove(filepath.Join(dir, l.File))
		}
	}
	return nil
}

// sameLayers reports whether a and b list the same layer files in the
// same order.
func sameLayers(a, b *manifest.Manifest) bool {
	if len(a.Layers) != len(b.Layers) {
		return false
	}
	for i := range a.Layers {
		if a.Layers[i].File != b.Layers[i].File {
			return false
		}
	}
	return true
}
