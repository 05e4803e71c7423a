package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestRun runs every mode on a small filter, dropped and warm, and checks
// the shape of the output (not the times), and that the add modes added.
func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.bloom")
	f, err := mmapbloom.Create(path, 10_000, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	for _, mode := range []string{"test", "single", "add", "testandadd"} {
		for _, warm := range []string{"-warm=false", "-warm=true"} {
			var out bytes.Buffer
			require.NoError(t, run([]string{"-file", path, "-keys", "300", "-mode", mode, warm}, &out))
			assert.Regexp(t, `^mode=`+mode+` keys=300 seconds=\d+\.\d{3} keys/s=(\d+|\+Inf)\n$`, out.String())
		}
	}
	f, err = mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	defer f.Close()
	c, err := f.Count()
	require.NoError(t, err)
	assert.Greater(t, c, uint64(1000), "four add runs of 300 fresh keys")
	require.Error(t, run([]string{"-file", path, "-mode", "remove"}, &bytes.Buffer{}))
	require.Error(t, run([]string{"-mode", "test"}, &bytes.Buffer{}))
}
