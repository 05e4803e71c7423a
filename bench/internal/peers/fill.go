package peers

// BatchSize is the number of keys per batch call in the benchmarks.
const BatchSize = 1024

// Fill adds every key of keys to f: with batch calls when f has them,
// else one by one.
func Fill(f Filter, keys [][]byte) error {
	if b, ok := f.(Batcher); ok {
		return forBatches(keys, b.AddBatch)
	}
	for _, k := range keys {
		if err := f.Add(k); err != nil {
			return err
		}
	}
	return nil
}

// PositiveRate returns the share of keys that f tests present: the
// false-positive rate when none of them was added.
func PositiveRate(f Filter, keys [][]byte) (float64, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	hits := 0
	if b, ok := f.(Batcher); ok {
		out := make([]bool, BatchSize)
		err := forBatches(keys, func(batch [][]byte) error {
			if err := b.TestBatch(batch, out); err != nil {
				return err
			}
			hits += countTrue(out[:len(batch)])
			return nil
		})
		return float64(hits) / float64(len(keys)), err
	}
	for _, k := range keys {
		ok, err := f.Test(k)
		if err != nil {
			return 0, err
		}
		if ok {
			hits++
		}
	}
	return float64(hits) / float64(len(keys)), nil
}

// forBatches calls fn on consecutive batches of at most BatchSize keys.
func forBatches(keys [][]byte, fn func([][]byte) error) error {
	for start := 0; start < len(keys); start += BatchSize {
		if err := fn(keys[start:min(start+BatchSize, len(keys))]); err != nil {
			return err
		}
	}
	return nil
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
