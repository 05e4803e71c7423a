package keyname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStem(t *testing.T) {
	for _, tc := range []struct{ key, stem string }{
		{"seen", "seen"},
		{"seen:{example.com}", "seen:%7Bexample.com%7D"},
		{"a-b_c.d:e", "a-b_c.d:e"},
		{"../x", "%2E.%2Fx"},
		{"/etc/x", "%2Fetc%2Fx"},
		{".", "%2E"},
		{"..", "%2E."},
		{"a\x00b", "a%00b"},
		{"100%", "100%25"},
		{"", "%"},
		{"é", "%C3%A9"},
	} {
		stem, err := Stem([]byte(tc.key))
		require.NoError(t, err, tc.key)
		assert.Equal(t, tc.stem, stem, tc.key)
		assert.NotContains(t, stem, "/")
		key, set, ok := KeyOf(stem + ".bloom")
		assert.True(t, ok, tc.key)
		assert.False(t, set)
		assert.Equal(t, tc.key, key)
		key, set, ok = KeyOf(stem + ".bfset")
		assert.True(t, ok && set && key == tc.key, tc.key)
	}
	_, err := Stem([]byte(strings.Repeat("k", 201)))
	require.ErrorIs(t, err, ErrBadKey)
	_, err = Stem([]byte(strings.Repeat("k", 200)))
	require.NoError(t, err)
	_, err = Stem([]byte(strings.Repeat("/", 77)))
	require.ErrorIs(t, err, ErrBadKey, "231 bytes escaped")

	for _, name := range []string{"x.txt", ".bloom", "a%2.bloom", "a%2g.bloom", "%61.bloom", ".a.bloom", "a/b.bloom", "%2E.x.bloom.tmp1", "a%7b.bloom"} {
		_, _, ok := KeyOf(name)
		assert.False(t, ok, name)
	}
}

// FuzzKeyOf: every name KeyOf accepts is what Stem writes for its key,
// and every key's stem decodes back to it; the same for the names of
// folded keys' buckets (foldFuzz).
func FuzzKeyOf(f *testing.F) {
	for _, s := range []string{"seen.bloom", "%.bloom", "%2E..bloom", "a%00b.bfset", "x",
		"seen:{example.com}", "seen:%7B%7D@b17.bfset", "a}{b}{c}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if key, set, ok := KeyOf(name); ok {
			stem, err := Stem([]byte(key))
			require.NoError(t, err)
			suffix := ".bloom"
			if set {
				suffix = ".bfset"
			}
			require.Equal(t, name, stem+suffix)
		}
		if stem, err := Stem([]byte(name)); err == nil {
			require.NotContains(t, stem, "/")
			key, _, ok := KeyOf(stem + ".bloom")
			require.True(t, ok)
			require.Equal(t, name, key)
		}
		foldFuzz(t, name)
	})
}
