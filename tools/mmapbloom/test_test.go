package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTestVectors(t *testing.T) {
	for _, name := range vectorNames {
		t.Run(name, func(t *testing.T) {
			bin, _, queries, expected := vector(t, name)
			before := readFile(t, bin)
			r := runCLI(t, nil, "test", "--bits", bin, queries)
			requireOK(t, r)
			require.Equal(t, string(readFile(t, expected)), r.stdout)
			require.Equal(t, before, readFile(t, bin), "test wrote to the filter")
		})
	}
}

func TestTest(t *testing.T) {
	path := newFilter(t, "1000", "0.0001")
	requireOK(t, runCLI(t, []byte("in1\nin2\r\n\n"), "add", path))
	require.NoError(t, os.Chmod(path, 0o444)) // test opens read-only
	keys := writeFile(t, t.TempDir(), "keys.txt", []byte("in1\nout1\nin2\r\nout2\n\nout3"))
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
	}{
		{name: "present lines", args: []string{keys}, code: exitOK, stdout: "in1\nin2\r\n\n"},
		{name: "absent lines", args: []string{"-v", keys}, code: exitOK, stdout: "out1\nout2\nout3\n"},
		{name: "bits", args: []string{"--bits", keys}, code: exitOK, stdout: "1\n0\n1\n0\n1\n0\n"},
		{name: "stdin", stdin: "out1\nin1", code: exitOK, stdout: "in1\n"},
		{name: "NUL keys", stdin: "in1\x00out1\x00in2\x00", args: []string{"-0"}, code: exitOK, stdout: "in1\x00in2\x00"},
		{name: "NUL keys keep CR", stdin: "in2\r\x00", args: []string{"-0"}, code: exitNoMatch},
		{name: "none present", stdin: "out1\nout2\n", code: exitNoMatch},
		{name: "none present, bits", stdin: "out1\n", args: []string{"--bits"}, code: exitNoMatch, stdout: "0\n"},
		{name: "none absent", stdin: "in1\n", args: []string{"-v"}, code: exitNoMatch},
		{name: "empty input", code: exitNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, []byte(tt.stdin), append([]string{"test", path}, tt.args...)...)
			require.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			require.Empty(t, r.stderr)
			require.Equal(t, tt.stdout, r.stdout)
		})
	}
}

func TestTestBadInput(t *testing.T) {
	path := newFilter(t, "1000", "0.01")
	requireOK(t, runCLI(t, []byte("good1\n"), "add", path))
	good := writeFile(t, t.TempDir(), "good.txt", []byte("good1\ngood2\n"))
	for name, keyFile := range badKeyFiles(t) {
		t.Run("key file "+name, func(t *testing.T) {
			r := runCLI(t, nil, "test", path, good, keyFile)
			requireFailure(t, r, "key file")
			require.Empty(t, r.stdout, "answers printed before the error")
		})
	}
	for name, bad := range badFilters(t) {
		t.Run("filter "+name, func(t *testing.T) {
			before := readFile(t, bad)
			requireFailure(t, runCLI(t, []byte("key\n"), "test", bad), "")
			require.Equal(t, before, readFile(t, bad))
		})
	}
	t.Run("bits and invert", func(t *testing.T) {
		requireFailure(t, runCLI(t, nil, "test", "--bits", "-v", path, good), "can't be used together")
	})
}
