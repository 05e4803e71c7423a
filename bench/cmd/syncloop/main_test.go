package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.bloom")
	f, err := mmapbloom.Create(path, 1000, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var out bytes.Buffer
	require.NoError(t, run([]string{"-file", path, "-for", "50ms"}, &out))
	assert.Regexp(t, `^syncs=[1-9]\d*\n$`, out.String())
	require.Error(t, run([]string{"-file", filepath.Join(t.TempDir(), "none")}, &out))
}
