package bench

import (
	"testing"

	"github.com/mmapbloom/mmapbloom/bench/internal/peers"
	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// workload is one library's filter over one key set. The filter is made,
// filled and measured only when an operation needs it, so that a -bench
// pattern that skips a library costs nothing.
type workload struct {
	lib             peers.Lib
	dir             string
	present, absent *keys.Set

	f      peers.Filter
	filled bool    // f holds exactly the present keys
	fpr    float64 // measured over the absent keys; valid when fprSet
	fprSet bool
}

// filter returns the filter, made on first use.
func (w *workload) filter(b *testing.B) peers.Filter {
	if w.f == nil {
		f, err := w.lib.New(w.dir, uint64(w.present.Len()), benchP)
		if err != nil {
			b.Fatal(err)
		}
		w.f = f
	}
	return w.f
}

// empty resets the filter before a timed add, outside the timer.
func (w *workload) empty(b *testing.B) {
	if err := w.filter(b).Reset(); err != nil {
		b.Fatal(err)
	}
	w.filled = false
}

// fill makes the filter hold exactly the present keys and measures its
// false-positive rate over the whole absent set, once.
func (w *workload) fill(b *testing.B) {
	if w.filled {
		return
	}
	w.empty(b)
	if err := peers.Fill(w.f, w.present.Keys()); err != nil {
		b.Fatal(err)
	}
	w.filled = true
	if !w.fprSet {
		fpr, err := peers.PositiveRate(w.f, w.absent.Keys())
		if err != nil {
			b.Fatal(err)
		}
		w.fpr, w.fprSet = fpr, true
	}
}

// report adds the filter's size, and its false-positive rate once
// measured, to the benchmark's metrics.
func (w *workload) report(b *testing.B) {
	b.ReportMetric(float64(w.filter(b).Bytes()), "filter-bytes")
	if w.fprSet {
		b.ReportMetric(w.fpr, "fpr")
	}
}

func (w *workload) close(b *testing.B) {
	if w.f == nil {
		return
	}
	if err := w.f.Close(); err != nil {
		b.Error(err)
	}
}
