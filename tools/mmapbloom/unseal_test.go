package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnseal(t *testing.T) {
	path := filledFilter(t)
	requireOK(t, runCLI(t, nil, "seal", path))
	requireOK(t, runCLI(t, nil, "unseal", path))
	info := infoOf(t, path)
	assert.Equal(t, false, info["sealed"])
	assert.Zero(t, info["data_crc"])
	requireOK(t, runCLI(t, []byte("new\n"), "add", path))
	requireOK(t, runCLI(t, nil, "unseal", path)) // not sealed: nothing to do
	requireFailure(t, runCLI(t, nil, "verify", path), "not sealed")
}

func TestUnsealBadInput(t *testing.T) {
	for name, path := range badFilters(t) {
		t.Run(name, func(t *testing.T) { requireFailure(t, runCLI(t, nil, "unseal", path), "") })
	}
	path := filledFilter(t)
	requireOK(t, runCLI(t, nil, "seal", path))
	held := openHeld(t, path)
	requireFailure(t, runCLI(t, nil, "unseal", path), "in use")
	assert.NoError(t, held.Close())
}
