package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parsed is one key as keyReader returned it.
type parsed struct {
	key string
	cr  bool
}

// parseAll reads every key of data, through a bufio buffer of size bytes.
func parseAll(t testing.TB, data []byte, sep byte, size int) []parsed {
	t.Helper()
	kr := newKeyReader(bufio.NewReaderSize(bytes.NewReader(data), size), sep)
	var out []parsed
	for {
		key, cr, err := kr.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, parsed{string(key), cr})
	}
}

func TestKeyReader(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	tests := []struct {
		name  string
		input string
		sep   byte
		want  []parsed
	}{
		{name: "empty input", input: "", sep: '\n'},
		{name: "one empty line", input: "\n", sep: '\n', want: []parsed{{"", false}}},
		{name: "lines", input: "a\nbc\n", sep: '\n', want: []parsed{{"a", false}, {"bc", false}}},
		{name: "last line without LF", input: "a\nb", sep: '\n', want: []parsed{{"a", false}, {"b", false}}},
		{name: "CRLF", input: "a\r\n\r\n", sep: '\n', want: []parsed{{"a", true}, {"", true}}},
		{name: "one CR stripped", input: "a\r\r\n", sep: '\n', want: []parsed{{"a\r", true}}},
		{name: "CR inside kept", input: "a\rb\n", sep: '\n', want: []parsed{{"a\rb", false}}},
		{name: "CR at end of input", input: "a\r", sep: '\n', want: []parsed{{"a", true}}},
		{name: "NUL in a line", input: "a\x00b\n", sep: '\n', want: []parsed{{"a\x00b", false}}},
		{name: "NUL records", input: "a\nb\x00\x00c", sep: 0, want: []parsed{{"a\nb", false}, {"", false}, {"c", false}}},
		{name: "NUL keeps CR", input: "a\r\x00", sep: 0, want: []parsed{{"a\r", false}}},
		{name: "1 MiB line", input: long + "\nx\n", sep: '\n', want: []parsed{{long, false}, {"x", false}}},
		{name: "1 MiB last line", input: "x\n" + long, sep: '\n', want: []parsed{{"x", false}, {long, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, parseAll(t, []byte(tt.input), tt.sep, 16))
			require.Equal(t, tt.want, parseAll(t, []byte(tt.input), tt.sep, 64<<10))
		})
	}
}

func TestKeyInputBatches(t *testing.T) {
	input := numbered("k", batchSize*2+3)
	in := &keyInput{sep: '\n', sources: []source{{name: "a", r: strings.NewReader(input)}, {name: "b", r: strings.NewReader("last")}}}
	var sizes []int
	var got strings.Builder
	require.NoError(t, in.each(func(b *batch) error {
		sizes = append(sizes, len(b.keys))
		for i := range b.keys {
			got.Write(b.keys[i])
			got.WriteByte('\n')
		}
		return nil
	}))
	require.Equal(t, []int{batchSize, batchSize, 4}, sizes)
	require.Equal(t, input+"last\n", got.String())
}

// FuzzKeys checks the key parser on any input, LF and NUL modes: it never
// panics, no key holds the terminator, and the keys, each followed by its
// stripped CR and the terminator, give back the input (with a terminator
// added after a last record that had none). The batch reader must return
// the same keys.
func FuzzKeys(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\n", "a\r\n", "a\r\r\n", "\r", "\r\n\r\n", "a\x00b\x00", "a\x00b",
		"\x00\x00", "Müller\n", "M\xfcller\r\n", "\xff\xfe", strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 40)} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, nul bool) {
		if len(data) > 256 {
			t.Skip("with a 16-byte buffer, short inputs reach every path; long ones only slow minimization")
		}
		sep := byte('\n')
		if nul {
			sep = 0
		}
		keys := parseAll(t, data, sep, 16)
		var joined []byte
		for _, k := range keys {
			if strings.IndexByte(k.key, sep) >= 0 || nul && k.cr {
				t.Fatalf("key %q (CR stripped: %v) holds its terminator or lost a CR in NUL mode", k.key, k.cr)
			}
			joined = append(joined, k.key...)
			if k.cr {
				joined = append(joined, '\r')
			}
			joined = append(joined, sep)
		}
		want := data
		if len(data) > 0 && data[len(data)-1] != sep {
			want = append(bytes.Clone(data), sep)
		}
		if !bytes.Equal(want, joined) {
			t.Fatalf("keys joined give %q, want %q", joined, want)
		}
		if batched := batchKeys(t, data, sep); !slices.Equal(keys, batched) {
			t.Fatalf("batches give %+v, keyReader %+v", batched, keys)
		}
	})
}

// batchKeys reads data through keyInput's batches.
func batchKeys(t *testing.T, data []byte, sep byte) []parsed {
	in := &keyInput{sep: sep, sources: []source{{name: "fuzz", r: bytes.NewReader(data)}}}
	var out []parsed
	require.NoError(t, in.each(func(b *batch) error {
		for i := range b.keys {
			out = append(out, parsed{string(b.keys[i]), b.crs[i]})
		}
		return nil
	}))
	return out
}

// TestKeysRoundTrip adds awkward keys through each input path, then tests
// them through the same path; keys never added test absent.
func TestKeysRoundTrip(t *testing.T) {
	mib := bytes.Repeat([]byte{0xff, 'k', '\r', 0}, 1<<18)
	tests := []struct {
		name  string
		input []byte
		null  bool
	}{
		{name: "empty key", input: []byte("\n")},
		{name: "LF inside, NUL input", input: []byte("a\nb\x00"), null: true},
		{name: "NUL inside, LF input", input: []byte("a\x00b\n")},
		{name: "UTF-8", input: []byte("Müller\n")},
		{name: "Latin-1", input: []byte{0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, '\n'}},
		{name: "raw bytes", input: []byte{0xff, 0xfe, '\n'}},
		{name: "1 MiB key", input: append(bytes.Clone(mib), '\n')},
		{name: "CRLF file", input: []byte("abc\r\n")},
		{name: "no final LF", input: []byte("tail")},
	}
	path := newFilter(t, "1000", "0.000001")
	dir := t.TempDir()
	files := make([]string, len(tests))
	for i, tt := range tests {
		files[i] = writeFile(t, dir, tt.name+".txt", tt.input)
		requireOK(t, runCLI(t, nil, withNull(tt.null, "add", path, files[i])...))
	}
	require.Equal(t, float64(len(tests)), infoOf(t, path)["count"])
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, nil, withNull(tt.null, "test", "--bits", path, files[i])...)
			requireOK(t, r)
			require.Equal(t, "1\n", r.stdout)
			r = runCLI(t, tt.input, withNull(tt.null, "test", "--bits", path)...)
			requireOK(t, r)
			require.Equal(t, "1\n", r.stdout, "through stdin")
		})
	}
	absent := []struct {
		name  string
		input string
		null  bool
	}{
		{name: "a", input: "a\n"}, {name: "b", input: "b\n"}, {name: "a NUL", input: "a\x00\n"},
		{name: "Muller", input: "Muller\n"}, {name: "abc CR", input: "abc\r\x00", null: true},
		{name: "1 MiB key less a byte", input: string(mib[1:]) + "\n"},
		{name: "two keys as one", input: "a\nb\n", null: true},
	}
	for _, tt := range absent {
		t.Run("absent "+tt.name, func(t *testing.T) {
			r := runCLI(t, []byte(tt.input), withNull(tt.null, "test", "--bits", path)...)
			require.Equal(t, exitNoMatch, r.code, r.stderr)
			require.Equal(t, "0\n", r.stdout)
		})
	}
}

// withNull appends -0 to args for NUL-terminated input.
func withNull(null bool, args ...string) []string {
	if null {
		return append(args, "-0")
	}
	return args
}
