package mmapbloom

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// faultCalls are the calls that must fail with ErrFileChanged when the
// file changed under the mapping. key is a key whose bits lie in pages
// the changes below keep; src is a healthy filter of the same shape.
var faultCalls = []struct {
	name string
	call func(f, src *Filter, key []byte) error
}{
	{"Test", func(f, _ *Filter, key []byte) error { _, err := f.Test(key); return err }},
	{"TestString", func(f, _ *Filter, key []byte) error { _, err := f.TestString(string(key)); return err }},
	{"Add", func(f, _ *Filter, key []byte) error { return f.Add(key) }},
	{"AddString", func(f, _ *Filter, key []byte) error { return f.AddString(string(key)) }},
	{"TestAndAdd", func(f, _ *Filter, key []byte) error { _, err := f.TestAndAdd(key); return err }},
	{"TestBatch", func(f, _ *Filter, key []byte) error { return f.TestBatch([][]byte{key, key}, make([]bool, 2)) }},
	{"AddBatch", func(f, _ *Filter, key []byte) error { return f.AddBatch([][]byte{key, key}) }},
	{"TestAndAddBatch", func(f, _ *Filter, key []byte) error {
		return f.TestAndAddBatch([][]byte{key, key}, make([]bool, 2))
	}},
	{"Stats", func(f, _ *Filter, _ []byte) error { _, err := f.Stats(); return err }},
	{"Count", func(f, _ *Filter, _ []byte) error { _, err := f.Count(); return err }},
	{"OverCapacity", func(f, _ *Filter, _ []byte) error { _, err := f.OverCapacity(); return err }},
	{"Sync", func(f, _ *Filter, _ []byte) error { return f.Sync() }},
	{"Clear", func(f, _ *Filter, _ []byte) error { return f.Clear() }},
	{"MergeInto", func(f, src *Filter, _ []byte) error { return f.Merge(src) }},
	{"MergeFrom", func(f, src *Filter, _ []byte) error { return src.Merge(f) }},
	{"Seal", func(f, _ *Filter, _ []byte) error { return f.Seal() }},
	{"Verify", func(f, _ *Filter, _ []byte) error { return f.Verify() }},
	{"Unseal", func(f, _ *Filter, _ []byte) error { return f.Unseal() }},
}

// faultChanges change a filter file behind its mapping. other is the
// file of another filter: a different seed, or (for the same-shape
// change) the same m, k and seed but another n and p, which only the v2
// header crc tells apart.
var faultChanges = []struct {
	name      string
	sameShape bool
	change    func(t *testing.T, path string, other []byte)
}{
	{"truncate-to-0", false, func(t *testing.T, path string, _ []byte) {
		require.NoError(t, os.Truncate(path, 0))
	}},
	{"shrink-by-a-page", false, func(t *testing.T, path string, _ []byte) {
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.NoError(t, os.Truncate(path, st.Size()-int64(os.Getpagesize())))
	}},
	{"header-of-another-filter", false, writeHeaderOf},
	{"header-of-same-shape-other-n", true, writeHeaderOf},
}

// writeHeaderOf writes the header of other over the header of path.
func writeHeaderOf(t *testing.T, path string, other []byte) {
	patchFile(t, path, 0, other[:format.HeaderSize])
}

// keyInFront returns a key whose bits all lie before the last two pages
// of f's file, so that only the guard, not the key's own probes, can
// notice a lost last page.
func keyInFront(t *testing.T, f *Filter) []byte {
	t.Helper()
	limit := (format.HeaderSize + f.Header().ByteSize - 2*uint64(os.Getpagesize())) * 8
	for i := range 10_000 {
		key := []byte(fmt.Sprintf("front %d", i))
		ok := true
		for _, p := range f.Locations(key) {
			ok = ok && format.HeaderSize*8+p < limit
		}
		if ok {
			return key
		}
	}
	require.FailNow(t, "no key with every bit in front")
	return nil
}

// TestFileChangedUnderMapping truncates, shrinks or rewrites the header
// of a mapped filter file behind the handle's back, and requires the next
// call of every kind to return ErrFileChanged (not a SIGBUS crash, not an
// answer), the handle to stay refused afterwards, and Close to work.
func TestFileChangedUnderMapping(t *testing.T) {
	for _, opts := range testLayouts {
		for _, ch := range faultChanges {
			t.Run(layoutName(opts)+"/"+ch.name, func(t *testing.T) {
				dir := t.TempDir()
				fixed := withSeed(opts, 5)
				create := func(name string, o *CreateOptions) *Filter {
					f, err := Create(filepath.Join(dir, name), 100_000, 0.01, o)
					require.NoError(t, err)
					t.Cleanup(func() { _ = f.Close() })
					return f
				}
				src := create("src.bloom", fixed)
				other := create("other.bloom", opts) // a random seed: another filter
				if ch.sameShape {
					if isV1(opts) {
						t.Skip("v1.1 headers have no checksum, and checkHeader does not compare n and p")
					}
					h := src.Header()
					g, err := CreateWithMK(filepath.Join(dir, "same.bloom"), h.M, h.K, &CreateOptions{
						Format: h.Version, Layout: h.Layout, Scheme: h.Scheme, Seed: h.Seed, FixedSeed: true,
					})
					require.NoError(t, err)
					t.Cleanup(func() { _ = g.Close() })
					other = g
				}
				otherHeader, err := os.ReadFile(other.Path())
				require.NoError(t, err)
				if ch.sameShape {
					// Only the header crc (word 7) differs among the words
					// checkHeader compares.
					srcHeader, err := os.ReadFile(src.Path())
					require.NoError(t, err)
					for _, w := range []int{0, 3, 5} {
						require.Equal(t, srcHeader[8*w:8*w+8], otherHeader[8*w:8*w+8], "word %d", w)
					}
					require.NotEqual(t, srcHeader[56:64], otherHeader[56:64])
				}
				for _, c := range faultCalls {
					t.Run(c.name, func(t *testing.T) {
						f := create(c.name+".bloom", fixed)
						key := keyInFront(t, f)
						require.NoError(t, f.AddBatch(testkit.WriterKeys(1, 0, 1000)))
						require.NoError(t, f.Add(key))
						if c.name == "Verify" && !isV1(opts) {
							require.NoError(t, f.Seal())
						}
						ch.change(t, f.Path(), otherHeader)
						require.ErrorIs(t, c.call(f, src, key), ErrFileChanged)
						_, err = f.Test(key)
						require.ErrorIs(t, err, ErrFileChanged, "later call")
						require.ErrorIs(t, f.Add(key), ErrFileChanged, "later call")
						require.NoError(t, f.Close())
						_, err = f.Test(key)
						require.ErrorIs(t, err, ErrClosed)
						if c.name == "MergeFrom" {
							// The healthy destination is still usable.
							_, err := src.Count()
							require.NoError(t, err)
						}
					})
				}
			})
		}
	}
}
