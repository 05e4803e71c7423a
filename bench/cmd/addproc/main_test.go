package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestRun adds two ranges in the two modes, one of them behind the start
// signal, and checks that every key landed and the count adds up.
func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.bloom")
	require.NoError(t, files.StoreForKeys(path, 5000, nil))

	var out bytes.Buffer
	require.NoError(t, run([]string{"-file", path, "-from", "0", "-to", "3000", "-mode", "batch"}, nil, &out))
	assert.Regexp(t, `^adds=3000 start-unix-ns=\d+ end-unix-ns=\d+ adds-per-sec=\d+ cpu-ns=\d+\n$`, out.String())

	out.Reset()
	args := []string{"-file", path, "-from", "3000", "-to", "5000", "-mode", "single", "-wait"}
	require.NoError(t, run(args, strings.NewReader("go\n"), &out))
	assert.Regexp(t, `^ready\nadds=2000 `, out.String())

	f, err := mmapbloom.Open(path, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	n, err := f.Count()
	require.NoError(t, err)
	assert.Equal(t, uint64(5000), n)
	for _, k := range keys.Generate(keys.Present, 0, 5000).Keys() {
		ok, err := f.Test(k)
		require.NoError(t, err)
		require.True(t, ok)
	}
}

func TestRunErrors(t *testing.T) {
	var out bytes.Buffer
	assert.Error(t, run([]string{"-file", "x", "-from", "5", "-to", "5"}, nil, &out))
	assert.Error(t, run([]string{"-file", "x", "-to", "5", "-mode", "nope"}, nil, &out))
	assert.Error(t, run([]string{"-file", filepath.Join(t.TempDir(), "missing"), "-to", "5"}, nil, &out))
	path := filepath.Join(t.TempDir(), "f.bloom")
	require.NoError(t, files.StoreForKeys(path, 10, nil))
	assert.Error(t, run([]string{"-file", path, "-to", "5", "-wait"}, strings.NewReader(""), &out), "no start line")
}
