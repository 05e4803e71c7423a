package mmapbloom

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// TestUnion: Union ORs another filter in while a second handle on the
// destination stays open (Merge would refuse), raises the count to the
// source's, changes nothing when repeated, and refuses another shape.
func TestUnion(t *testing.T) {
	dir := t.TempDir()
	dst := newTestFilter(t, 10_000, 0.01, nil)
	src, err := CreateLike(filepath.Join(dir, "src.bloom"), dst.Header(), nil)
	require.NoError(t, err)
	defer src.Close()
	other, err := Open(dst.Path(), nil)
	require.NoError(t, err)
	defer other.Close()
	for i := range 1000 {
		require.NoError(t, src.Add(setKey("u", i)))
	}
	require.NoError(t, dst.Add(setKey("d", 0)))
	require.ErrorIs(t, dst.Merge(src), ErrInUse)
	require.NoError(t, dst.Union(src))
	for i := range 1000 {
		ok, err := other.Test(setKey("u", i))
		require.NoError(t, err)
		require.True(t, ok, i)
	}
	want, err := src.Count()
	require.NoError(t, err)
	got, err := other.Count()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	require.NoError(t, dst.Union(src))
	got, err = dst.Count()
	require.NoError(t, err)
	assert.Equal(t, want, got)

	small, err := Create(filepath.Join(dir, "small.bloom"), 10, 0.01, nil)
	require.NoError(t, err)
	defer small.Close()
	require.ErrorIs(t, dst.Union(small), ErrMismatch)
}

// TestUnionPiece: a filter's file bytes applied to a copy in pieces of
// odd sizes at unaligned offsets give every key and the count; pieces
// of another shape or beyond the array are refused.
func TestUnionPiece(t *testing.T) {
	dir := t.TempDir()
	src, err := Create(filepath.Join(dir, "src.bloom"), 5000, 0.01, nil)
	require.NoError(t, err)
	for i := range 3000 {
		require.NoError(t, src.Add(setKey("p", i)))
	}
	require.NoError(t, src.Close())
	b, err := os.ReadFile(filepath.Join(dir, "src.bloom"))
	require.NoError(t, err)
	h, err := format.Decode(b[:format.HeaderSize])
	require.NoError(t, err)
	bits := b[format.HeaderSize:]
	dst, err := CreateLike(filepath.Join(dir, "dst.bloom"), h, nil)
	require.NoError(t, err)
	defer dst.Close()
	for off, step := 0, 1; off < len(bits); off, step = off+step, step*3%1021+1 {
		end := min(off+step, len(bits))
		require.NoError(t, dst.UnionPiece(h, uint64(off), bits[off:end]))
	}
	for i := range 3000 {
		ok, err := dst.Test(setKey("p", i))
		require.NoError(t, err)
		require.True(t, ok, i)
	}
	n, err := dst.Count()
	require.NoError(t, err)
	assert.Equal(t, h.Count, n)
	require.NoError(t, dst.UnionPiece(h, uint64(len(bits)), nil))
	require.ErrorIs(t, dst.UnionPiece(h, uint64(len(bits))-1, []byte{1, 2}), ErrInvalidM)
	require.ErrorIs(t, dst.UnionPiece(h, 1<<62, []byte{1}), ErrInvalidM)
	other := h
	other.Seed++
	require.ErrorIs(t, dst.UnionPiece(other, 0, []byte{1}), ErrMismatch)
}

// copySetFiles copies the named files of set directory from into to.
func copySetFiles(t *testing.T, from, to string, files []string) {
	t.Helper()
	for _, f := range files {
		in, err := os.Open(filepath.Join(from, f))
		require.NoError(t, err)
		out, err := os.Create(filepath.Join(to, f))
		require.NoError(t, err)
		_, err = io.Copy(out, in)
		require.NoError(t, err)
		require.NoError(t, in.Close())
		require.NoError(t, out.Close())
	}
}

// TestAdoptSetManifest: a copy of a scalable set is built from its
// layer files and MANIFEST; after the primary grows, the copy's open
// handle sees the new layer and every key once the layers are unioned or
// copied and the MANIFEST adopted.
func TestAdoptSetManifest(t *testing.T) {
	base := t.TempDir()
	p, err := CreateSet(filepath.Join(base, "p.bfset"), 100, 0.01, &SetOptions{Expansion: 2})
	require.NoError(t, err)
	defer p.Close()
	for i := range 150 {
		require.NoError(t, p.Add(setKey("a", i)))
	}
	raw, files, err := p.Manifest()
	require.NoError(t, err)
	require.Len(t, files, 2)

	rdir := filepath.Join(base, "r.bfset")
	require.NoError(t, os.Mkdir(rdir, 0o755))
	copySetFiles(t, p.Dir(), rdir, files)
	require.NoError(t, AdoptSetManifest(rdir, raw))
	r, err := OpenSet(rdir, nil)
	require.NoError(t, err)
	defer r.Close()

	for i := 150; i < 600; i++ {
		require.NoError(t, p.Add(setKey("a", i)))
	}
	raw, files, err = p.Manifest()
	require.NoError(t, err)
	require.Greater(t, len(files), 2)
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(rdir, f)); err != nil {
			copySetFiles(t, p.Dir(), rdir, []string{f})
			continue
		}
		dst, err := Open(filepath.Join(rdir, f), nil)
		require.NoError(t, err)
		src, err := Open(filepath.Join(p.Dir(), f), nil)
		require.NoError(t, err)
		require.NoError(t, dst.Union(src))
		require.NoError(t, errors.Join(dst.Close(), src.Close()))
	}
	require.NoError(t, AdoptSetManifest(rdir, raw))
	require.NoError(t, AdoptSetManifest(rdir, raw)) // again: no change
	for i := range 600 {
		ok, err := r.Test(setKey("a", i))
		require.NoError(t, err)
		require.True(t, ok, i)
	}
	assert.Equal(t, len(files), r.Layers())

	q, err := CreateSet(filepath.Join(base, "q.bfset"), 100, 0.01, &SetOptions{Expansion: 2})
	require.NoError(t, err)
	defer q.Close()
	qraw, _, err := q.Manifest()
	require.NoError(t, err)
	copySetFiles(t, q.Dir(), rdir, []string{"L000000.bloom"})
	require.ErrorIs(t, AdoptSetManifest(rdir, qraw), ErrMismatch)
	require.ErrorIs(t, AdoptSetManifest(rdir, []byte(`{"version":1}`)), ErrBadSet)
	require.ErrorIs(t, AdoptSetManifest(rdir, []byte(`not json`)), ErrBadSet)
	require.ErrorIs(t, AdoptSetManifest(t.TempDir(), raw), ErrBadSet) // layers missing
}

// FuzzAdoptSetManifest: any bytes as a MANIFEST to adopt, into a new
// directory holding one layer file or into an existing set, fail with
// an error or leave a set that opens; never a panic.
func FuzzAdoptSetManifest(f *testing.F) {
	base := f.TempDir()
	p, err := CreateSet(filepath.Join(base, "p.bfset"), 100, 0.01, &SetOptions{Expansion: 2})
	require.NoError(f, err)
	raw, _, err := p.Manifest()
	require.NoError(f, err)
	require.NoError(f, p.Close())
	f.Add(raw)
	f.Add([]byte(`{"version":1,"kind":"windowed","layers":[{"file":"../x"}]}`))
	f.Add([]byte(`{"version":1,"kind":"scalable","expansion":2,"tightening":0.5,"layers":[{"file":"MANIFEST"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, existing := range []bool{false, true} {
			dir := filepath.Join(t.TempDir(), "r.bfset")
			require.NoError(t, os.Mkdir(dir, 0o755))
			files := []string{"L000000.bloom"}
			if existing {
				files = append(files, "MANIFEST", "CONTROL")
			}
			copySetFiles(t, filepath.Join(base, "p.bfset"), dir, files)
			if AdoptSetManifest(dir, b) != nil {
				continue
			}
			s, err := OpenSet(dir, &OpenOptions{ReadOnly: true})
			if err == nil {
				require.NoError(t, s.Close())
			}
		}
	})
}
