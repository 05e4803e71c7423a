package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// filledFilter creates a v2 filter holding key0..key99.
func filledFilter(t *testing.T) string {
	t.Helper()
	path := newFilter(t, "1000", "0.01")
	requireOK(t, runCLI(t, []byte(numbered("key", 100)), "add", path))
	return path
}

func TestSeal(t *testing.T) {
	path := filledFilter(t)
	requireOK(t, runCLI(t, nil, "seal", path))
	info := infoOf(t, path)
	assert.Equal(t, true, info["sealed"])
	assert.NotZero(t, info["data_crc"])
	requireFailure(t, runCLI(t, []byte("new\n"), "add", path), "sealed")
	requireFailure(t, runCLI(t, nil, "seal", path), "sealed")
	r := runCLI(t, []byte(numbered("key", 100)), "test", "--bits", path)
	require.Equal(t, exitOK, r.code)
	assert.NotContains(t, r.stdout, "0", "a sealed filter answers as before")
}

func TestSealBadInput(t *testing.T) {
	for name, path := range badFilters(t) {
		t.Run(name, func(t *testing.T) { requireFailure(t, runCLI(t, nil, "seal", path), "") })
	}
	v1, _, _, _ := vector(t, "urls-n10000-p0.0001-seed0")
	requireFailure(t, runCLI(t, nil, "seal", v1), "")
	path := filledFilter(t)
	held := openHeld(t, path)
	requireFailure(t, runCLI(t, nil, "seal", path), "in use")
	require.NoError(t, held.Close())
}
