package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildPrograms builds coldstart, addproc, procbench and the mmapbloom
// command-line tool (from the main module) into a temporary directory.
func buildPrograms(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", bin+"/", "../coldstart", "../addproc", ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd = exec.Command("go", "build", "-o", bin+"/", "./tools/mmapbloom")
	cmd.Dir = "../../.."
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestColdAndScale runs both subcommands on tiny filters and checks the
// shape of their lines (not the times).
func TestColdAndScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs child programs")
	}
	bin := buildPrograms(t)
	dir := t.TempDir()

	var out bytes.Buffer
	require.NoError(t, run([]string{"cold", "-dir", dir, "-coldstart", filepath.Join(bin, "coldstart"),
		"-runs", "3", "-size", "64KiB", "-bab-n", "10k", "-keys", "1000"}, &out))
	assert.Regexp(t, `^BenchmarkColdStart/lib=mmapbloom/size=64KiB\t3\t\S+ median-ns\t\S+ max-ns\t\S+ process-median-ns\t65600 filter-bytes
BenchmarkHeapInuse/lib=mmapbloom/size=64KiB\t1\t\d+ heap-open-bytes\t\d+ heap-query-bytes\t65600 filter-bytes
BenchmarkColdStart/lib=bitsandblooms/size=23KiB\t3\t.*
BenchmarkHeapInuse/lib=bitsandblooms/size=23KiB\t1\t.*
BenchmarkColdStart/lib=bitsandblooms/size=64KiB\t3\t.*
BenchmarkHeapInuse/lib=bitsandblooms/size=64KiB\t1\t.*
$`, out.String())

	out.Reset()
	require.NoError(t, run([]string{"scale", "-dir", dir, "-addproc", filepath.Join(bin, "addproc"), "-n", "20k"}, &out))
	assert.Regexp(t, `^BenchmarkScale/mode=batch/procs=1\t20000\t\d+ adds/s\t\S+ cpu-ns/add
BenchmarkScale/mode=batch/procs=2\t20000\t\d+ adds/s\t\S+ cpu-ns/add\t\S+ speedup
BenchmarkScale/mode=single/procs=1\t20000\t\d+ adds/s\t\S+ cpu-ns/add
BenchmarkScale/mode=single/procs=2\t20000\t\d+ adds/s\t\S+ cpu-ns/add\t\S+ speedup
$`, out.String())
	out.Reset()
	require.NoError(t, run([]string{"disk", "-dir", dir, "-coldstart", filepath.Join(bin, "coldstart"),
		"-mmapbloom", filepath.Join(bin, "mmapbloom"), "-procbench", filepath.Join(bin, "procbench"), "-runs", "2", "-size", "1MiB", "-keys", "1000"}, &out))
	var ops []string
	for _, op := range []string{"first", "single-1000", "batch-100000"} {
		for _, lib := range []string{"mmapbloom", "mmapbloom-huge", "bitsandblooms"} {
			ops = append(ops, "lib="+lib+"/op="+op)
		}
	}
	ops = append(ops, "lib=mmapbloom-cli/op=info", "lib=mmapbloom-cli/op=info-stats")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, len(ops))
	for i, line := range lines {
		assert.Regexp(t, `^BenchmarkColdDisk/`+ops[i]+`/size=1MiB\t2\t\S+ median-ns\t\S+ max-ns\t\S+ read-bytes\t\S+ peak-rss-bytes\t\d+ filter-bytes$`, line)
	}

	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Empty(t, files, "files left behind")
}

func TestHelpers(t *testing.T) {
	for s, want := range map[string]uint64{"1GiB": 1 << 30, "64KiB": 64 << 10, "3MiB": 3 << 20, "4096": 4096} {
		got, err := parseBytes(s)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := parseBytes("1GB")
	assert.Error(t, err)
	assert.Equal(t, "1GiB", formatBytes(1<<30+64))
	assert.Equal(t, "114MiB", formatBytes(119_814_960))
	assert.Equal(t, 2.5, median([]float64{4, 1, 2, 3}))
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, "123456789", formatValue(123456789.4))
	assert.Equal(t, "0.0001234", formatValue(0.00012344))
	assert.Equal(t, "7", parseKV("a=1 b=7 junk")["b"])
	assert.Error(t, run(nil, &bytes.Buffer{}))
	assert.Error(t, run([]string{"nope"}, &bytes.Buffer{}))
}

// TestWrites runs the writes subcommand on a tiny filter and checks the
// shape of its lines (not the figures: the directory's device is shared).
func TestWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs child programs")
	}
	bin := buildPrograms(t)
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"writes", "-dir", dir, "-mmapbloom", filepath.Join(bin, "mmapbloom"),
		"-procbench", filepath.Join(bin, "procbench"), "-n", "20k", "-feed", "100000", "-for", "1s", "-writers", "500/0,500/200ms"}, &out))
	metrics := `\t\d+ write-bytes\t\S+ write-bytes/key\t\S+ write-bytes/file-byte\t\S+ device-bytes/file-byte\t\d+ filter-bytes\t\d+ wall-ns\t\d+ peak-rss-bytes\n`
	assert.Regexp(t, `^BenchmarkDiskWrites/way=create\+add/n=20k\t1`+metrics+
		`BenchmarkDiskWrites/way=create-keys/n=20k\t1`+metrics+
		`BenchmarkDiskWrites/way=writer/rate=500/sync=0/n=20k\t1`+metrics+
		`BenchmarkDiskWrites/way=writer/rate=500/sync=200ms/n=20k\t1`+metrics+`$`, out.String())
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Empty(t, files, "files left behind")
}
