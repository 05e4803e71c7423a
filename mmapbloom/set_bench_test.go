package mmapbloom

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
)

// BenchmarkSet compares a scalable set of 4 layers (expansion 2: n0, 2n0,
// 4n0, 8n0 with n0 = n/15, holding 14.5 n0 keys) with one filter of the
// same total capacity n holding the same keys, p = 1e-4, blocked layout,
// MMAPBLOOM_BENCH_N keys (default 1M), with each kernel this CPU runs
// (the single-key calls do not use them). The goal: batch ns/key
// of the set at most 1.5 times the filter's.
func BenchmarkSet(b *testing.B) {
	s, f, present, absent := benchSetAndFilter(b)
	n := len(absent)
	defer func() { kernel.Active = kernel.Available[0] }()
	for _, kern := range kernel.Available {
		kernel.Active = kern
		for _, tc := range []struct {
			name string
			t    benchTarget
		}{{"set-L4", s}, {"filter", f}} {
			name := fmt.Sprintf("impl=%s/kind=%s/n=%d", kern, tc.name, n)
			if kern == kernel.Available[0] {
				b.Run(name+"/op=test-present", func(b *testing.B) { benchTest(b, tc.t, present) })
				b.Run(name+"/op=test-absent", func(b *testing.B) { benchTest(b, tc.t, absent) })
			}
			b.Run(name+"/op=batch-test-present", func(b *testing.B) { benchBatchTest(b, tc.t, present) })
			b.Run(name+"/op=batch-test-absent", func(b *testing.B) { benchBatchTest(b, tc.t, absent) })
			b.Run(name+"/op=batch-testandadd-present", func(b *testing.B) { benchBatchCall(b, present, tc.t.TestAndAddBatch) })
		}
	}
}

// benchSetAndFilter builds BenchmarkSet's set and filter for
// MMAPBLOOM_BENCH_N keys, with present keys both hold (an even sample of
// benchQueries at most) and as many absent ones.
func benchSetAndFilter(b *testing.B) (s *Set, f *Filter, present, absent [][]byte) {
	n := benchN(b)
	n0 := n / 15
	present, absent = keysOf(0, n0*29/2), keysOf(1, n)
	s, err := CreateSet(filepath.Join(b.TempDir(), "bench.bfset"), uint64(n0), 1e-4, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	require.NoError(b, s.AddBatch(present))
	require.Equal(b, 4, s.Layers())
	f, err = Create(filepath.Join(b.TempDir(), "bench.bloom"), uint64(15*n0), 1e-4, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = f.Close() })
	require.NoError(b, f.AddBatch(present))
	return s, f, evenSample(present, benchQueries), absent
}

// benchQueries is the most present keys BenchmarkSet asks for: about
// what 3000 batches of benchBatch keys go through.
const benchQueries = 1 << 20

// evenSample returns up to most keys taken at even steps through keys
// (all of them if there are no more), copied together: the present keys
// asked for come from every layer in proportion to its keys (the first
// keys added fill the oldest layers), read in order from one buffer.
func evenSample(keys [][]byte, most int) [][]byte {
	step := (len(keys) + most - 1) / most
	if step <= 1 {
		return keys
	}
	var size int
	for i := 0; i < len(keys); i += step {
		size += len(keys[i])
	}
	buf := make([]byte, 0, size)
	sample := make([][]byte, 0, len(keys)/step+1)
	for i := 0; i < len(keys); i += step {
		start := len(buf)
		buf = append(buf, keys[i]...)
		sample = append(sample, buf[start:len(buf):len(buf)])
	}
	return sample
}

// BenchmarkSetStages splits a TestBatch of absent keys on BenchmarkSet's
// set into its stages, each kernel this CPU runs: op=hash hashes the
// keys only, op=locate also computes each key's block in every layer and
// prefetches the lines (the fused pipeline without the test), op=test is
// the whole call. Where op=locate costs nearly what op=test does, the
// call waits on the lines, not on the kernel.
func BenchmarkSetStages(b *testing.B) {
	s, _, _, absent := benchSetAndFilter(b)
	v, err := s.current()
	require.NoError(b, err)
	layers := v.live(s.now)
	stages := map[string]func(keys [][]byte, out []bool) error{
		"hash": func(keys [][]byte, out []bool) error {
			for i, key := range keys {
				out[i] = xxh3.HashSeed(key, v.m.Seed)&1 == 0
			}
			return nil
		},
		"locate": func(keys [][]byte, _ []bool) error {
			return guardLayers(layers, false, func() error {
				p := startFused(layers, v.m.Seed, keys, keyHashes{})
				defer p.put()
				for c := p.piece(); c != nil; c = p.piece() {
				}
				return nil
			})
		},
		"test": s.TestBatch,
	}
	defer func() { kernel.Active = kernel.Available[0] }()
	for _, kern := range kernel.Available {
		kernel.Active = kern
		for _, op := range []string{"hash", "locate", "test"} {
			b.Run(fmt.Sprintf("impl=%s/n=%d/op=%s", kern, len(absent), op), func(b *testing.B) {
				benchBatchCall(b, absent, stages[op])
			})
		}
	}
}
