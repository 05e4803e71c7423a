package main

import (
	"encoding/json"
	"os"
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
	assert.Equal(t, map[string]any{"file": path, "intact": false, "data_crc": crc}, decodeJSON(t, r.stdout))
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
