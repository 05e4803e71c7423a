package store_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// clock is a settable clock for Expiries.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// TestExpiries: the table's answers at a fixed clock, and the file a
// restart reads back.
func TestExpiries(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{now: time.UnixMilli(1_000_000)}
	x, err := store.LoadExpiries(dir, clk.Now)
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(dir, store.ExpiresFile), "no file until an expiry is set")

	require.NoError(t, x.Set("a", 1_000_000)) // due now
	require.NoError(t, x.Set("b", 2_000_000))
	require.NoError(t, x.Set("c", 3_000_000))
	for _, tc := range []struct {
		stem    string
		ms      int64
		has     bool
		expired bool
	}{
		{"a", 1_000_000, true, true},
		{"b", 2_000_000, true, false},
		{"none", 0, false, false},
	} {
		ms, has := x.Get(tc.stem)
		assert.Equal(t, tc.ms, ms, tc.stem)
		assert.Equal(t, tc.has, has, tc.stem)
		assert.Equal(t, tc.expired, x.Expired(tc.stem), tc.stem)
	}
	assert.Equal(t, []string{"a"}, x.Due())
	clk.now = time.UnixMilli(2_000_000)
	due := x.Due()
	sort.Strings(due)
	assert.Equal(t, []string{"a", "b"}, due)

	ok, err := x.Drop("a")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = x.Drop("a")
	require.NoError(t, err)
	assert.False(t, ok, "dropped already")

	require.NoError(t, x.Move("c", "b"), "RENAME c b: b takes c's expiry")
	require.NoError(t, x.Move("none", "d"), "RENAME of a key without expiry: d has none")
	stems := x.Stems()
	assert.Equal(t, []string{"b"}, stems)

	again, err := store.LoadExpiries(dir, clk.Now)
	require.NoError(t, err)
	ms, has := again.Get("b")
	assert.True(t, has)
	assert.EqualValues(t, 3_000_000, ms, "the restart reads the file")
	assert.Equal(t, []string{"b"}, again.Stems())
}

// TestExpiriesWriteFails: a change whose file cannot be written is
// refused and leaves the table as it was.
func TestExpiriesWriteFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o755))
	x, err := store.LoadExpiries(dir, time.Now)
	require.NoError(t, err)
	require.NoError(t, x.Set("a", 5))
	require.NoError(t, os.RemoveAll(dir))

	require.Error(t, x.Set("b", 6))
	_, err = x.Drop("a")
	require.Error(t, err)
	require.Error(t, x.Move("a", "c"))
	ms, has := x.Get("a")
	assert.True(t, has)
	assert.EqualValues(t, 5, ms)
	assert.Equal(t, []string{"a"}, x.Stems())
}

// TestExpiriesBadFile: an expiry file that is not the table's JSON is
// refused at load, naming the file.
func TestExpiriesBadFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, store.ExpiresFile), []byte("{not json"), 0o644))
	_, err := store.LoadExpiries(dir, time.Now)
	require.ErrorContains(t, err, filepath.Join(dir, store.ExpiresFile))
}
