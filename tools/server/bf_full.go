package server

import (
	"errors"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// msgNonScalingFull is RedisBloom's reply to an add of a new item to a
// NONSCALING filter at its capacity (bfInsertCommon in rebloom.c).
const msgNonScalingFull = "ERR non scaling filter is full"

// errNonScalingFull is returned by addBounded for the first new item
// that a full fixed filter refuses.
var errNonScalingFull = errors.New("non scaling filter is full")

// addBounded adds items to b as addBatch does, present[i] telling
// whether items[i] was already there, except that a fixed (NONSCALING)
// filter takes no new item once full, as RedisBloom's SBChain_Add: an
// item not yet present is refused with errNonScalingFull when the
// header's count (Count: the adds that set a bit, over every process
// that wrote the file) has reached the filter's capacity n. Items already
// present still answer present. It returns how many items it answered
// (all of them, or the index of the refused one). A filter made from
// an explicit m and k has no n and is never full. The count is read
// before each add: adds racing in other connections or local processes
// may take a filter past n by their number, and another process's count
// is seen in its groups of 256 (see mmapbloom.Filter.Count).
func (c *client) addBounded(b store.Bloom, items [][]byte, present []bool) (int, error) {
	f, ok := b.(store.Fixed)
	if !ok || f.N() == 0 {
		return len(items), c.addBatch(b, items, present)
	}
	n, err := f.Count()
	if err != nil {
		return 0, err
	}
	if n+uint64(len(items)) <= f.N() {
		return len(items), c.addBatch(f, items, present)
	}
	for i, item := range items {
		if present[i], err = addOne(f, item); err != nil {
			return i, err
		}
	}
	return len(items), nil
}

// addOne adds item to the fixed filter f unless it is new and f is full
// (errNonScalingFull); it reports whether item was already present.
func addOne(f store.Fixed, item []byte) (bool, error) {
	present, err := f.Test(item)
	if err != nil || present {
		return present, err
	}
	n, err := f.Count()
	if err != nil {
		return false, err
	}
	if n >= f.N() {
		return false, errNonScalingFull
	}
	return f.TestAndAdd(item)
}

// addEach adds items as that many BF.ADD commands would, in batches
// (addBounded): full[i] tells that a full NONSCALING filter refused
// items[i] (nil when none was refused), and the items after a refused
// one are still added or answered present, each on its own.
func (c *client) addEach(b store.Bloom, items [][]byte, present []bool) (full []bool, err error) {
	for i := 0; i < len(items); {
		done, err := c.addBounded(b, items[i:], present[i:])
		if !errors.Is(err, errNonScalingFull) {
			return full, err
		}
		if full == nil {
			full = make([]bool, len(items))
		}
		full[i+done] = true
		i += done + 1
	}
	return full, nil
}
