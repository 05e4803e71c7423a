package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestRun builds the mmapbloom command, runs coldserve on a small filter,
// dropped and warm, and checks the shape of the line (not the times); a
// file that is no KEY.bloom and a missing binary are refused.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the mmapbloom command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "mmapbloom")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./tools/mmapbloom")
	build.Dir = "../../.."
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	path := filepath.Join(t.TempDir(), "cold.bloom")
	f, err := mmapbloom.Create(path, 10_000, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	for _, warm := range []string{"-warm=false", "-warm=true"} {
		var line bytes.Buffer
		require.NoError(t, run([]string{"-bin", bin, "-file", path, "-keys", "300", "-batch", "70", "-conns", "2", warm}, &line))
		assert.Regexp(t, `^mode=serve keys=300 startup-seconds=\d+\.\d{3} seconds=\d+\.\d{3} keys/s=\d+\n$`, line.String())
	}
	require.Error(t, run([]string{"-bin", bin, "-file", filepath.Join(t.TempDir(), "cold.bf")}, &bytes.Buffer{}))
	require.Error(t, run([]string{"-bin", filepath.Join(t.TempDir(), "none"), "-file", path}, &bytes.Buffer{}))
}
