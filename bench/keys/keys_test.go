package keys

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGenerateDeterministic checks that a key depends only on its family
// and index, whatever range it was generated in.
func TestGenerateDeterministic(t *testing.T) {
	whole := Generate(Present, 0, 1000)
	part := Generate(Present, 500, 600)
	for j := range part.Len() {
		assert.Equal(t, whole.Keys()[500+j], part.Keys()[j])
		assert.Equal(t, whole.Keys()[500+j], AppendURL(nil, Present, uint64(500+j)))
	}
}

// TestGenerateShape checks the length and layout of the keys: about 60
// bytes, back to back in one buffer of exactly their total size.
func TestGenerateShape(t *testing.T) {
	s := Generate(Absent, 49_999_000, 50_000_000)
	total := 0
	for i, k := range s.Keys() {
		assert.Equal(t, urlLen(uint64(49_999_000+i)), len(k))
		assert.Equal(t, len(k), cap(k), "a key must not be appendable into the next")
		total += len(k)
	}
	assert.Equal(t, total, len(s.data))
	assert.InDelta(t, 60, float64(total)/float64(s.Len()), 3)
	assert.Same(t, &s.Keys()[0][0], &s.data[0])
}

// TestFamiliesDisjoint checks that no key of one family is a key of the
// other, and that keys of one family are distinct.
func TestFamiliesDisjoint(t *testing.T) {
	const n = 50_000
	seen := make(map[string]bool, 2*n)
	for _, f := range []Family{Present, Absent} {
		s := Generate(f, 0, n)
		for _, k := range s.Keys() {
			require.False(t, seen[string(k)], "duplicate key %s", k)
			seen[string(k)] = true
		}
	}
}

func TestParseFormatN(t *testing.T) {
	for s, want := range map[string]int{"50M": 50_000_000, "500k": 500_000, "2G": 2_000_000_000, "1234": 1234, "3K": 3000} {
		got, err := ParseN(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, bad := range []string{"", "M", "-1M", "0", "1.5M", "ten"} {
		_, err := ParseN(bad)
		assert.Error(t, err, bad)
	}
	for n, want := range map[int]string{50_000_000: "50M", 1_500_000: "1500k", 721_839: "721839", 1_000_000_000: "1G"} {
		assert.Equal(t, want, FormatN(n))
	}
}

func TestEnvN(t *testing.T) {
	t.Setenv("KEYS_TEST_N", "")
	n, err := EnvN("KEYS_TEST_N")
	require.NoError(t, err)
	assert.Equal(t, DefaultN, n)
	t.Setenv("KEYS_TEST_N", "10M")
	n, err = EnvN("KEYS_TEST_N")
	require.NoError(t, err)
	assert.Equal(t, 10_000_000, n)
}

// TestPhishingSplit checks the reader and the present/absent split on a
// small file written here.
func TestPhishingSplit(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte("http://a.example/1\r\nhttp://b.example/22\n\nhttp://c.example/333\n" +
		"http://d.example/4\nhttp://e.example/5\nhttp://f.example/6\nhttp://g.example/7\n" +
		"http://h.example/8\nhttp://i.example/9\nhttp://j.example/10"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, PhishingFile), buf.Bytes(), 0o644))

	present, absent, err := Phishing(dir)
	require.NoError(t, err)
	require.Equal(t, 9, present.Len())
	require.Equal(t, 1, absent.Len())
	assert.Equal(t, "http://a.example/1", string(present.Keys()[0]))
	assert.Equal(t, "http://b.example/22", string(present.Keys()[1]))
	assert.Equal(t, "http://j.example/10", string(absent.Keys()[0]))
	assert.Equal(t, "http://j.example/10", string(absent.data), "absent shares the buffer from its first key")
}

func TestPhishingMissing(t *testing.T) {
	_, _, err := Phishing(t.TempDir())
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}

// TestPhishingReal reads the shared list when it is there.
func TestPhishingReal(t *testing.T) {
	present, absent, err := Phishing(filepath.Join("..", "..", "..", "shared", "data"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("shared data not present")
	}
	require.NoError(t, err)
	assert.Equal(t, 802_044, present.Len()+absent.Len())
}
