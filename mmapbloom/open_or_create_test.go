package mmapbloom_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// TestOpenOrCreate: a missing file is created; an existing one is opened
// with the values not given taken from it, and a value given that differs
// is refused naming both.
func TestOpenOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.bloom")
	f, err := mmapbloom.OpenOrCreate(path, 1000, 0.01, &mmapbloom.CreateOptions{Seed: 7, FixedSeed: true})
	require.NoError(t, err)
	filtertest.Watch(t, f) // the opens below keep the file's immutable header
	require.NoError(t, f.AddString("a"))
	require.NoError(t, f.Close())
	for _, tc := range []struct {
		name string
		n    uint64
		p    float64
		opts *mmapbloom.CreateOptions
		err  string
	}{
		{name: "same", n: 1000, p: 0.01, opts: &mmapbloom.CreateOptions{Seed: 7, FixedSeed: true, Format: format.V2}},
		{name: "nothing given", n: 0, p: 0},
		{name: "n differs", n: 5, p: 0.01, err: "n 5 given, the file has 1000"},
		{name: "p differs", n: 1000, p: 0.5, err: "p 0.5 given, the file has 0.01"},
		{name: "seed differs", opts: &mmapbloom.CreateOptions{Seed: 9, FixedSeed: true}, err: "seed 9 given, the file has 7"},
		{name: "format differs", opts: &mmapbloom.CreateOptions{Format: format.V1}, err: "format v1.1 given, the file has v2"},
		{name: "layout differs", opts: &mmapbloom.CreateOptions{Layout: format.LayoutClassic}, err: "layout classic given, the file has blocked512"},
		{name: "prime", opts: &mmapbloom.CreateOptions{PrimeM: true}, err: "prime m true given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := mmapbloom.OpenOrCreate(path, tc.n, tc.p, tc.opts)
			if tc.err != "" {
				require.ErrorIs(t, err, mmapbloom.ErrOptionDiffers)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			defer f.Close()
			ok, err := f.TestString("a")
			require.NoError(t, err)
			assert.True(t, ok, "opened the existing file")
			assert.Equal(t, uint64(7), f.Header().Seed)
		})
	}
	_, err = mmapbloom.OpenOrCreate(filepath.Join(t.TempDir(), "g.bloom"), 0, 0.01, nil)
	require.ErrorIs(t, err, mmapbloom.ErrInvalidN, "creating needs n")
}

// TestOpenOrCreateRace: goroutines racing to create the same file and
// set all get a handle on the one the winner made.
func TestOpenOrCreateRace(t *testing.T) {
	dir := t.TempDir()
	const racers = 8
	for _, set := range []bool{false, true} {
		name := filepath.Join(dir, map[bool]string{false: "f.bloom", true: "s.bfset"}[set])
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := []byte{byte(i)}
				if set {
					s, err := mmapbloom.OpenOrCreateSet(name, 1000, 0.01, nil)
					if errs[i] = err; err == nil {
						errs[i] = s.AddBatch([][]byte{key})
						_ = s.Close()
					}
					return
				}
				f, err := mmapbloom.OpenOrCreate(name, 1000, 0.01, nil)
				if errs[i] = err; err == nil {
					errs[i] = f.Add(key)
					_ = f.Close()
				}
			}()
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "racer %d (set %v)", i, set)
		}
		keys := make([][]byte, racers)
		for i := range keys {
			keys[i] = []byte{byte(i)}
		}
		present := make([]bool, racers)
		if set {
			s, err := mmapbloom.OpenSet(name, nil)
			require.NoError(t, err)
			require.NoError(t, s.TestBatch(keys, present))
			require.NoError(t, s.Close())
		} else {
			f, err := mmapbloom.Open(name, nil)
			require.NoError(t, err)
			require.NoError(t, f.TestBatch(keys, present))
			require.NoError(t, f.Close())
		}
		for i, ok := range present {
			assert.True(t, ok, "racer %d's key lost (set %v): it wrote to a file another replaced", i, set)
		}
	}
}

// TestOpenOrCreateSet: an existing set is opened with the values not
// given taken from its MANIFEST; a value given that differs is refused
// naming both.
func TestOpenOrCreateSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w.bfset")
	s, err := mmapbloom.OpenOrCreateSet(dir, 100, 0.01, &mmapbloom.SetOptions{Window: time.Hour, Keep: 3})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	for _, tc := range []struct {
		name string
		n    uint64
		opts *mmapbloom.SetOptions
		err  string
	}{
		{name: "same", n: 100, opts: &mmapbloom.SetOptions{Window: time.Hour, Keep: 3}},
		{name: "nothing given"},
		{name: "n differs", n: 200, err: "n 200 given, the file has 100"},
		{name: "window differs", opts: &mmapbloom.SetOptions{Window: 24 * time.Hour}, err: "window 24h0m0s given, the file has 1h0m0s"},
		{name: "keep differs", opts: &mmapbloom.SetOptions{Keep: 2}, err: "keep 2 given, the file has 3"},
		{name: "refresh differs", opts: &mmapbloom.SetOptions{Refresh: true}, err: "refresh true given, the file has false"},
		{name: "expansion differs", opts: &mmapbloom.SetOptions{Expansion: 4}, err: "expansion 4 given, the file has 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := mmapbloom.OpenOrCreateSet(dir, tc.n, 0, tc.opts)
			if tc.err != "" {
				require.ErrorIs(t, err, mmapbloom.ErrOptionDiffers)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, time.Hour, s.Window())
			require.NoError(t, s.Close())
		})
	}
	scalable := filepath.Join(t.TempDir(), "s.bfset")
	s, err = mmapbloom.OpenOrCreateSet(scalable, 100, 0.01, nil)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = mmapbloom.OpenOrCreateSet(scalable, 0, 0, &mmapbloom.SetOptions{Window: time.Hour})
	require.ErrorIs(t, err, mmapbloom.ErrOptionDiffers)
	assert.Contains(t, err.Error(), "window 1h0m0s given, the file has none (a scalable set)")
}
