package bench

import (
	"testing"

	"github.com/mmapbloom/mmapbloom/bench/internal/peers"
)

// runOps runs the operations of one library: the adds first (each into an
// emptied filter), then the tests on the filter holding every present key.
// Batch operations run only for libraries with batch calls.
func runOps(b *testing.B, w *workload) {
	_, batch := w.filter(b).(peers.Batcher)
	b.Run("op=add", func(b *testing.B) { benchAdd(b, w) })
	if batch {
		b.Run("op=batch-add", func(b *testing.B) { benchBatchAdd(b, w) })
	}
	b.Run("op=test-present", func(b *testing.B) { benchTest(b, w, w.present.Keys()) })
	b.Run("op=test-absent", func(b *testing.B) { benchTest(b, w, w.absent.Keys()) })
	if batch {
		b.Run("op=batch-test-present", func(b *testing.B) { benchBatchTest(b, w, w.present.Keys()) })
		b.Run("op=batch-test-absent", func(b *testing.B) { benchBatchTest(b, w, w.absent.Keys()) })
	}
}

// benchAdd adds the present keys one by one into an emptied filter; when
// they run out, it empties the filter again outside the timer, so every
// timed add is of a new key into a filter below its capacity.
func benchAdd(b *testing.B, w *workload) {
	keys := w.present.Keys()
	w.empty(b)
	f := w.f
	b.ReportAllocs()
	cpu := startThreadCPU()
	i := 0
	for b.Loop() {
		if i == len(keys) {
			b.StopTimer()
			w.empty(b)
			i = 0
			b.StartTimer()
		}
		if err := f.Add(keys[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	cpu.report(b) // with the emptying of the filter, when keys ran out
	w.report(b)
}

// benchBatchAdd is benchAdd with AddBatch calls of peers.BatchSize keys.
func benchBatchAdd(b *testing.B, w *workload) {
	keys := w.present.Keys()
	size := min(peers.BatchSize, len(keys))
	w.empty(b)
	f := w.f.(peers.Batcher)
	b.ReportAllocs()
	i, batches := 0, 0
	for b.Loop() {
		if i+size > len(keys) {
			b.StopTimer()
			w.empty(b)
			i = 0
			b.StartTimer()
		}
		if err := f.AddBatch(keys[i : i+size]); err != nil {
			b.Fatal(err)
		}
		i += size
		batches++
	}
	reportPerKey(b, batches*size)
	w.report(b)
}

// benchTest tests keys one by one, in order, on the filled filter.
func benchTest(b *testing.B, w *workload, keys [][]byte) {
	w.fill(b)
	f := w.f
	b.ReportAllocs()
	cpu := startThreadCPU()
	i := 0
	for b.Loop() {
		if _, err := f.Test(keys[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
	cpu.report(b)
	w.report(b)
}

// benchBatchTest tests keys in TestBatch calls of peers.BatchSize keys.
func benchBatchTest(b *testing.B, w *workload, keys [][]byte) {
	w.fill(b)
	f := w.f.(peers.Batcher)
	size := min(peers.BatchSize, len(keys))
	out := make([]bool, size)
	b.ReportAllocs()
	i, batches := 0, 0
	for b.Loop() {
		if i+size > len(keys) {
			i = 0
		}
		if err := f.TestBatch(keys[i:i+size], out); err != nil {
			b.Fatal(err)
		}
		i += size
		batches++
	}
	reportPerKey(b, batches*size)
	w.report(b)
}

// reportPerKey reports the time per key of a batch benchmark.
func reportPerKey(b *testing.B, keys int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
}
