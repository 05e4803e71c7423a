package mmapbloom

import (
	"fmt"

	"github.com/mmapbloom/mmapbloom/format"
)

// AddBatch adds every key of keys, with the same effect as calling Add on
// each in order, and adds len(keys) to the count. Errors as for Add.
func (f *Filter) AddBatch(keys [][]byte) error {
	var buf [format.MaxK]uint64
	return f.run(false, true, func() error {
		for _, key := range keys {
			f.setBits(f.loc.locate(key, buf[:]))
		}
		f.addCount(uint64(len(keys)))
		return nil
	})
}

// TestBatch sets present[i] to Test(keys[i]) for every key. present must
// be at least as long as keys (ErrBadOptions otherwise). Errors as for
// Test.
func (f *Filter) TestBatch(keys [][]byte, present []bool) error {
	if len(present) < len(keys) {
		return fmt.Errorf("mmapbloom: TestBatch: %d results for %d keys: %w", len(present), len(keys), ErrBadOptions)
	}
	var buf [format.MaxK]uint64
	return f.run(false, false, func() error {
		for i, key := range keys {
			present[i] = f.testBits(f.loc.locate(key, buf[:]))
		}
		return nil
	})
}

// TestAndAddBatch sets present[i] to TestAndAdd(keys[i]) for every key in
// order, so a key repeated within the batch is new only the first time.
// present must be at least as long as keys. Errors as for TestAndAdd.
func (f *Filter) TestAndAddBatch(keys [][]byte, present []bool) error {
	if len(present) < len(keys) {
		return fmt.Errorf("mmapbloom: TestAndAddBatch: %d results for %d keys: %w", len(present), len(keys), ErrBadOptions)
	}
	var buf [format.MaxK]uint64
	return f.run(false, true, func() error {
		added := uint64(0)
		for i, key := range keys {
			present[i] = !f.setBits(f.loc.locate(key, buf[:]))
			if !present[i] {
				added++
			}
		}
		f.addCount(added)
		return nil
	})
}
