package mmapbloom

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// TestAndAdd's claim. Several handles (goroutines, processes) adding the
// same new key at once should agree on one of them to tell it new (a
// crawler fetches a page once), and no handle may be told "present" for
// a key that was absent, unless the key's bits are now all set by other
// keys (a false positive): a key told present is never printed, a page
// never crawled.
//
// Each bit is set by exactly one atomic OR, whose old value tells its
// caller whether it set it. A handle loads every word of the key (the
// block's 8 words, or the k positions' words), then ORs, in one fixed
// order, those that lacked a bit. When its first OR sets a clear bit, it
// claims the key and ORs the rest. When its first OR finds the bits set,
// another handle set them since the loads: almost always one adding the
// same key, which is setting the key's other words right then. The
// handle waits for it (claimBackoff) and then ORs the words it lacked,
// and claims the key only if one of those ORs still sets a bit.
//
// So no key is lost: a handle that claims nothing found every bit it
// lacked set by others, by the key's claimant or by other keys (a false
// positive of theirs). And handles in lockstep claim once, unless the
// first one is held up longer than the wait between two of its ORs (a
// preemption), where the loser would set a later word first. Deciding
// on the last OR alone would make the claim exact, but a handle
// preempted between its ORs while another key sets the last word's bits
// would then lose its key (seen in 1,000,000-URL runs of eight dedup
// processes); deciding on any OR without the wait let the loser win a
// later word of the same cache line in 0.1% to 3% of lockstep keys; and
// deciding from the loads alone told every lockstep handle new. The
// loads are those the ORs' skip checks made anyway; a handle that finds
// the key absent and is alone pays nothing more.

// claimBackoff is how long a handle whose first OR found its bits set
// waits for their setter to set the key's other words: a few of its
// locked ORs in Go, a few calls in Python (python/src/mmapbloom/filter.py
// waits as long), and a scheduler wake-up.
const claimBackoff = 50 * time.Microsecond

// claimLine ORs an 8-word mask into line and reports whether this call
// claims the key, by the rule above.
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
	first := bits.TrailingZeros8(lacking)
	won := atomic.OrUint64(&line[first], mask[first])&mask[first] != mask[first]
	if !won {
		time.Sleep(claimBackoff)
	}
	for w := first + 1; w < hashing.BlockWords; w++ {
		if lacking&(1<<w) != 0 && atomic.OrUint64(&line[w], mask[w])&mask[w] != mask[w] {
			won = true
		}
	}
	return won
}

// claimBits sets every position and reports whether this call claims
// the key, by the rule above (the first position it saw clear standing
// for the first word).
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
	first := bits.TrailingZeros64(clearBits)
	won := f.setBit(locs[first])
	if !won {
		time.Sleep(claimBackoff)
	}
	for i := first + 1; i < len(locs); i++ {
		if clearBits&(1<<i) != 0 && f.setBit(locs[i]) {
			won = true
		}
	}
	return won
}

// setBit sets position p with an atomic OR and reports whether it was
// clear.
func (f *Filter) setBit(p uint64) bool {
	return atomic.OrUint64(&f.words[p>>6], wordMask(p))&wordMask(p) == 0
}
