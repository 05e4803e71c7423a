package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

func TestVerify(t *testing.T) {
	path := filledFilter(t)
	requireOK(t, runCLI(t, nil, "seal", path))
	crc := infoOf(t, path)["data_crc"]

	r := runCLI(t, nil, "verify", path)
	requireOK(t, r)
	assert.Equal(t, path+": intact\n", r.stdout)
	r = runCLI(t, nil, "verify", "--json", path)
	requireOK(t, r)
	assert.Equal(t, map[string]any{"file": path, "intact": true, "data_crc": crc}, decodeJSON(t, r.stdout))

	flipBit(t, path, format.HeaderSize+17)
	r = runCLI(t, nil, "verify", path)
	assert.Equal(t, exitNoMatch, r.code)
	assert.Empty(t, r.stderr)
	assert.Contains(t, r.stdout, path+": corrupted")
	r = runCLI(t, nil, "verify", "--json", path)
	assert.Equal(t, exitNoMatch, r.code)
	assert.Equal(t, map[string]any{"file": path, "intact": false, "data_crc": crc, "error": corruptedReason}, decodeJSON(t, r.stdout))
}

// TestVerifyFormsGolden runs verify and verify --json on a sealed filter
// and a sealed set, intact, with a changed bit, unsealed, truncated and
// missing, and compares the transcript (stdout, stderr, exit status; the
// directory written DIR, nonzero checksums CRC) with
// testdata/verify-forms.golden (-update rewrites it): both forms give the
// same reasons, with the same words, and the same exit status.
func TestVerifyFormsGolden(t *testing.T) {
	dir := t.TempDir()
	file, set := filepath.Join(dir, "f.bloom"), filepath.Join(dir, "s.bfset")
	var out strings.Builder
	verify := func(step, path string, want int) {
		out.WriteString("# " + step + "\n")
		for _, args := range [][]string{{"verify", path}, {"verify", "--json", path}} {
			r := runCLI(t, nil, args...)
			fmt.Fprintf(&out, "$ mmapbloom %s\n%s%sexit %d\n", strings.Join(args, " "), r.stdout, r.stderr, r.code)
			assert.Equal(t, want, r.code, "%s: %v", step, args)
		}
	}

	require.NoError(t, os.Rename(filledFilter(t), file))
	verify("filter not sealed", file, exitError)
	requireOK(t, runCLI(t, nil, "seal", file))
	verify("sealed filter", file, exitOK)
	flipBit(t, file, format.HeaderSize+17)
	verify("sealed filter, one bit changed", file, exitNoMatch)
	require.NoError(t, os.Truncate(file, format.HeaderSize+8))
	verify("sealed filter truncated", file, exitError)
	require.NoError(t, os.Remove(file))
	verify("filter missing", file, exitError)

	live := filledSetDir(t)
	requireOK(t, runCLI(t, nil, "export", live, set))
	verify("set not sealed", set, exitError)
	requireOK(t, runCLI(t, nil, "seal", set))
	verify("sealed set", set, exitOK)
	flipBit(t, layerPath(set, 1), format.HeaderSize+100)
	verify("sealed set, one bit of L000001.bloom changed", set, exitNoMatch)
	require.NoError(t, os.Truncate(layerPath(set, 0), format.HeaderSize+8))
	verify("sealed set, L000000.bloom truncated", set, exitError)
	require.NoError(t, os.Remove(layerPath(set, 2)))
	verify("sealed set, L000002.bloom missing", set, exitError)
	require.NoError(t, os.RemoveAll(set))
	verify("set missing", set, exitError)

	got := strings.ReplaceAll(out.String(), dir, "DIR")
	got = regexp.MustCompile(`"data_crc":[1-9][0-9]*`).ReplaceAllString(got, `"data_crc":CRC`)
	assertGolden(t, filepath.Join("testdata", "verify-forms.golden"), got)
}

func TestVerifyBadInput(t *testing.T) {
	for name, path := range badFilters(t) {
		t.Run(name, func(t *testing.T) {
			requireFailure(t, runCLI(t, nil, "verify", path), "")
			requireFailure(t, runCLI(t, nil, "verify", "--json", path), "")
		})
	}
	requireFailure(t, runCLI(t, nil, "verify", filledFilter(t)), "not sealed")
	v1, _, _, _ := vector(t, "urls-n10000-p0.0001-seed0")
	requireFailure(t, runCLI(t, nil, "verify", v1), "not sealed")
}

// flipBit inverts the lowest bit of byte off of the file at path.
func flipBit(t *testing.T, path string, off int) {
	t.Helper()
	b := readFile(t, path)
	b[off] ^= 1
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// decodeJSON decodes one JSON object.
func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}
