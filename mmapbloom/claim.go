package mmapbloom

import (
	"math/bits"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// TestAndAdd's claim. Several handles (goroutines, processes) adding the
// same new key at once must agree on one of them to tell it new: a
// crawler fetches a page once. Each bit is set by exactly one atomic OR,
// and the OR's old value tells its caller whether it set it; but a key
// has several words, and when each handle decides "new" from any OR
// that set a bit, handles in lockstep each set a different word first
// and are all told new.
//
// So a handle decides on one OR only: it loads every word of the key
// first (the block's 8 words, or the k positions' words), then ORs in a
// fixed order the words that lacked a bit, and claims the key when its
// last OR (the claim word) set a clear bit. Two handles never both
// claim: if they chose the same claim word, one OR found its bits
// clear; if one chose a later word than the other, that word was set
// when the other loaded it, by the first handle's last OR (it found it
// clear), so every word of the key was set before the other's loads
// ended and its OR cannot set a bit. A handle that finds a bit clear
// claims the key unless another handle claims it, or another key's
// concurrent add sets the claim word's bits between the loads and the
// OR (then no handle is told new: a false positive of that moment, far
// rarer than p). The loads are those the ORs' skip checks made anyway;
// the claim adds no pass over the words.

// claimLine ORs an 8-word mask into line and reports whether this call
// claims the key: it loads the 8 words first, ORs in word order those
// that lack a bit of their part, and claims when the OR of the last of
// them (the claim word) set a clear bit, from its old value.
func claimLine(line []uint64, mask *[hashing.BlockWords]uint64) bool {
	var lacking uint8 // bit w: word w lacks a bit of its part
	for w, m := range mask {
		if atomic.LoadUint64(&line[w])&m != m {
			lacking |= 1 << w
		}
	}
	if lacking == 0 {
		return false
	}
	last := 7 - bits.LeadingZeros8(lacking)
	for w := range last {
		if lacking&(1<<w) != 0 {
			atomic.OrUint64(&line[w], mask[w])
		}
	}
	return atomic.OrUint64(&line[last], mask[last])&mask[last] != mask[last]
}

// claimBits sets every position and reports whether this call claims
// the key: it loads every position's word first, sets in order the
// positions it saw clear, and claims when the OR of the last of them
// (the claim bit, ORed last even when an earlier position repeats it)
// set it, from its old value.
func (f *Filter) claimBits(locs []uint64) bool {
	var clearBits uint64 // bit i: position i was clear (k <= format.MaxK = 64)
	for i, p := range locs {
		if atomic.LoadUint64(&f.words[p>>6])&wordMask(p) == 0 {
			clearBits |= 1 << i
		}
	}
	if clearBits == 0 {
		return false
	}
	last := 63 - bits.LeadingZeros64(clearBits)
	claim := locs[last]
	for i, p := range locs[:last] {
		if clearBits&(1<<i) != 0 && p != claim {
			atomic.OrUint64(&f.words[p>>6], wordMask(p))
		}
	}
	return atomic.OrUint64(&f.words[claim>>6], wordMask(claim))&wordMask(claim) == 0
}
