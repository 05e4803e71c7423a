package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/bench/internal/files"
	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// TestRun runs coldstart on a small file of each library and checks the
// answers and the shape of the output (not the times).
func TestRun(t *testing.T) {
	ks := keys.Generate(keys.Present, 0, 100).Keys()
	dir := t.TempDir()
	store := filepath.Join(dir, "f.bloom")
	bab := filepath.Join(dir, "f.bab")
	require.NoError(t, files.StoreOfBytes(store, 1<<12, ks))
	require.NoError(t, files.BitsAndBloomsOfBytes(bab, 1<<12, ks))
	absent := string(keys.AppendURL(nil, keys.Absent, 0))

	for _, tc := range []struct{ lib, file, key, want string }{
		{"mmapbloom", store, string(ks[0]), "present=true"},
		{"mmapbloom", store, absent, "present=false"},
		{"bitsandblooms", bab, string(ks[0]), "present=true"},
	} {
		var out bytes.Buffer
		require.NoError(t, run([]string{"-lib", tc.lib, "-file", tc.file, "-key", tc.key, "-heap"}, &out))
		assert.Regexp(t, `^elapsed-ns=\d+ `+tc.want+` heap-open-bytes=\d+ heap-query-bytes=\d+\n$`, out.String())
	}
}

// TestRunProbes checks -probes with single and batch calls: every
// generated key was added, so every answer is present.
func TestRunProbes(t *testing.T) {
	ks := keys.Generate(keys.Present, 0, 100).Keys()
	dir := t.TempDir()
	store := filepath.Join(dir, "f.bloom")
	bab := filepath.Join(dir, "f.bab")
	require.NoError(t, files.StoreOfBytes(store, 1<<12, ks))
	require.NoError(t, files.BitsAndBloomsOfBytes(bab, 1<<12, ks))
	for _, lib := range []string{"mmapbloom", "bitsandblooms"} {
		for _, batch := range []string{"-batch=false", "-batch=true"} {
			file := map[string]string{"mmapbloom": store, "bitsandblooms": bab}[lib]
			var out bytes.Buffer
			require.NoError(t, run([]string{"-lib", lib, "-file", file, "-key", string(ks[0]), "-probes", "50", batch}, &out))
			assert.Regexp(t, `^elapsed-ns=\d+ present=true probes=50 found=50\n$`, out.String(), lib+" "+batch)
		}
	}
}

func TestRunErrors(t *testing.T) {
	var out bytes.Buffer
	assert.Error(t, run([]string{"-key", "x"}, &out))
	assert.Error(t, run([]string{"-file", "x", "-probes", "0"}, &out))
	assert.Error(t, run([]string{"-lib", "nope", "-file", "x"}, &out))
	assert.Error(t, run([]string{"-file", filepath.Join(t.TempDir(), "missing")}, &out))
	assert.Error(t, run([]string{"-lib", "bitsandblooms", "-file", filepath.Join(t.TempDir(), "missing")}, &out))
}
