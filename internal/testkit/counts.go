package testkit

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Locator is what the count references read of a filter: its m (bits),
// k and the bit positions of a key (mmapbloom.Filter has all three).
type Locator interface {
	M() uint64
	K() uint32
	Locations(key []byte) []uint64
}

// SequentialCount returns the count a filter must hold after keys were
// added to it, in order, by one caller, starting empty: the number of
// keys that set a bit no earlier key set, computed from Locations on a
// plain bit set; with countsCalls (a v1.1 file, which counts Add calls)
// every key.
func SequentialCount(f Locator, countsCalls bool, keys [][]byte) uint64 {
	if countsCalls {
		return uint64(len(keys))
	}
	seen := make([]bool, f.M())
	var n uint64
	for _, key := range keys {
		added := false
		for _, p := range f.Locations(key) {
			added = added || !seen[p]
			seen[p] = true
		}
		if added {
			n++
		}
	}
	return n
}

// RequireConcurrentCount checks the count after adds add calls of the
// distinct keys keys (each key added by one or more callers, in any
// order, concurrently): at least the number of keys with a bit that no
// other key sets (whoever added such a key first set that bit), at most
// the calls made. With countsCalls (a v1.1 file) it is every call.
func RequireConcurrentCount(t testing.TB, f Locator, countsCalls bool, keys [][]byte, adds, count uint64, msg string) {
	t.Helper()
	if countsCalls {
		require.Equal(t, adds, count, msg)
		return
	}
	require.GreaterOrEqual(t, count, OwnBit(f, keys, nil), "%s: count below the keys with a bit of their own", msg)
	require.LessOrEqual(t, count, adds, "%s: count above the add calls", msg)
}

// OwnBit returns how many of the distinct keys added have a bit that no
// other key of added or maybe (keys whose adds may have run in part) sets:
// each of those was counted by its add, whatever the order.
func OwnBit(f Locator, added, maybe [][]byte) uint64 {
	setters := make([]uint8, f.M()) // saturating: 2 means "two or more"
	for _, key := range append(slices.Clip(added), maybe...) {
		for _, p := range Distinct(f.Locations(key)) {
			setters[p] = min(setters[p]+1, 2)
		}
	}
	var owners uint64
	for _, key := range added {
		for _, p := range Distinct(f.Locations(key)) {
			if setters[p] == 1 {
				owners++
				break
			}
		}
	}
	return owners
}
