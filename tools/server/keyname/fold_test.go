package keyname

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

func TestFold(t *testing.T) {
	slot := func(tag string) int { return cluster.KeySlot([]byte(tag)) }
	long := strings.Repeat("h", 100_000)
	for _, tc := range []struct {
		key     string
		buckets int
		folded  bool
		stem    string // "" when not folded or refused
		tag     string
		bad     bool // ErrBadKey
	}{
		{key: "seen:{example.com}", buckets: 64, folded: true, tag: "example.com",
			stem: fmt.Sprintf("seen:%%7B%%7D@b%d", slot("example.com")/256)},
		{key: "{a}", buckets: 64, folded: true, tag: "a", stem: fmt.Sprintf("%%7B%%7D@b%d", slot("a")/256)},
		{key: "seen:{example.com}:robots", buckets: 16384, folded: true, tag: "example.com",
			stem: fmt.Sprintf("seen:%%7B%%7D:robots@b%d", slot("example.com"))},
		{key: "seen:{example.com}", buckets: 1, folded: true, tag: "example.com", stem: "seen:%7B%7D@b0"},
		{key: "a}{b}c{d}", buckets: 64, folded: true, tag: "b", stem: fmt.Sprintf("a%%7D%%7B%%7Dc%%7Bd%%7D@b%d", slot("b")/256)},
		{key: "x{{a}}", buckets: 64, folded: true, tag: "{a", stem: fmt.Sprintf("x%%7B%%7D%%7D@b%d", slot("{a")/256)},
		{key: ".{h}/../", buckets: 64, folded: true, tag: "h", stem: fmt.Sprintf("%%2E%%7B%%7D%%2F..%%2F@b%d", slot("h")/256)},
		{key: "\x00{h\r\n}\xff", buckets: 64, folded: true, tag: "h\r\n", stem: fmt.Sprintf("%%00%%7B%%7D%%FF@b%d", slot("h\r\n")/256)},
		{key: "seen:{" + long + "}", buckets: 64, folded: true, tag: long, stem: fmt.Sprintf("seen:%%7B%%7D@b%d", slot(long)/256)},
		{key: strings.Repeat("p", 199) + "{a}", buckets: 64, folded: true, tag: "a", bad: true},
		{key: strings.Repeat("/", 74) + "{a}", buckets: 64, folded: true, tag: "a", bad: true}, // 228 escaped + @bN
		{key: "seen:{}", buckets: 64},
		{key: "seen:{example.com", buckets: 64},
		{key: "seen:}example.com{", buckets: 64},
		{key: "seen", buckets: 64},
		{key: "", buckets: 64},
	} {
		f, ok, err := Fold([]byte(tc.key), tc.buckets)
		name := tc.key[:min(len(tc.key), 40)]
		require.Equal(t, tc.folded, ok, name)
		if tc.bad {
			require.ErrorIs(t, err, ErrBadKey, name)
			continue
		}
		require.NoError(t, err, name)
		if !tc.folded {
			continue
		}
		assert.Equal(t, tc.stem, f.Stem, name)
		assert.Equal(t, tc.tag, string(f.Tag), name)
		assert.Equal(t, slot(tc.tag)/(cluster.Slots/tc.buckets), f.Bucket, name)
		checkFoldedName(t, f, tc.key)
	}
}

// checkFoldedName checks the names of the folded key's bucket filter:
// never a key's name, decoded back by FoldedOf, no path separator.
func checkFoldedName(t *testing.T, f Folded, key string) {
	t.Helper()
	require.NotContains(t, f.Stem, "/")
	require.LessOrEqual(t, len(f.Stem), MaxStemBytes)
	open := strings.IndexByte(key, '{')
	wantName := key[:open+1] + key[open+1+len(f.Tag):]
	for _, suffix := range []string{FileSuffix, SetSuffix} {
		_, _, ok := KeyOf(f.Stem + suffix)
		require.False(t, ok, "a bucket's name %q is a key's name", f.Stem+suffix)
		name, bucket, set, ok := FoldedOf(f.Stem + suffix)
		require.True(t, ok, f.Stem+suffix)
		require.Equal(t, wantName, name)
		require.Equal(t, f.Bucket, bucket)
		require.Equal(t, suffix == SetSuffix, set)
	}
}

// foldFuzz checks the folded naming rule on name, as a directory entry
// (a name FoldedOf accepts is never a key's, and is what foldedStem
// writes) and as a key (checkFoldedName, for 1, 64 and 16384 buckets).
func foldFuzz(t *testing.T, name string) {
	if folded, bucket, set, ok := FoldedOf(name); ok {
		_, _, isKey := KeyOf(name)
		require.False(t, isKey, name)
		stem, err := foldedStem([]byte(folded), bucket)
		require.NoError(t, err)
		suffix := FileSuffix
		if set {
			suffix = SetSuffix
		}
		require.Equal(t, name, stem+suffix)
	}
	for _, buckets := range []int{1, 64, cluster.Slots} {
		if f, ok, err := Fold([]byte(name), buckets); ok && err == nil {
			checkFoldedName(t, f, name)
		}
	}
}

func TestFoldedOfRefuses(t *testing.T) {
	for _, name := range []string{"seen.bloom", "seen@b1.bloom", "seen:%7B%7D@b.bloom", "seen:%7B%7D@b01.bloom",
		"seen:%7B%7D@b16384.bfset", "seen:%7B%7D@b-1.bloom", "seen:%7Ba%7D@b1.bloom", "seen:%7B@b1.bloom",
		"seen:{}@b1.bloom", "seen:%7B%7D@b1.tmp", "%7B%7D@b1x.bloom", "@b1.bloom", "seen:%7B%7D@b+1.bloom"} {
		_, _, _, ok := FoldedOf(name)
		assert.False(t, ok, name)
	}
}
