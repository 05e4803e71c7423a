package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// openHeld opens path read-only with the library, as another user of the
// file would, until the test closes it.
func openHeld(t *testing.T, path string) *mmapbloom.Filter {
	t.Helper()
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func TestClear(t *testing.T) {
	path := filledFilter(t)
	requireOK(t, runCLI(t, nil, "clear", path))
	assert.Zero(t, infoOf(t, path)["count"])
	r := runCLI(t, []byte(numbered("key", 100)), "test", path)
	assert.Equal(t, exitNoMatch, r.code, "every key absent after clear")
	r = runCLI(t, nil, "info", "--stats", "--json", path)
	requireOK(t, r)
	assert.Contains(t, r.stdout, `"set_bits": 0,`)
	requireOK(t, runCLI(t, []byte("key1\n"), "add", path))
}

func TestClearBadInput(t *testing.T) {
	for name, path := range badFilters(t) {
		t.Run(name, func(t *testing.T) { requireFailure(t, runCLI(t, nil, "clear", path), "") })
	}
	sealed := filledFilter(t)
	requireOK(t, runCLI(t, nil, "seal", sealed))
	requireFailure(t, runCLI(t, nil, "clear", sealed), "sealed")

	path := filledFilter(t)
	held := openHeld(t, path)
	requireFailure(t, runCLI(t, nil, "clear", path), "in use")
	require.NoError(t, held.Close())
	assert.Equal(t, 100.0, infoOf(t, path)["count"], "a refused clear changes nothing")
}
