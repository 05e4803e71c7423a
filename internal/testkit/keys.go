package testkit

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// SharedEvery spaces the shared keys of the writers' key sequences: key s
// of writer id is that writer's own key (id, s), except that every 11th
// key (s%11 == 10) is shared key s/11, the same for every writer.
const SharedEvery = 11

// WriterKey writes key s of writer id's sequence into buf (13 bytes) and
// returns it: 'o' or 's' (own or shared), then id and s little-endian.
func WriterKey(buf []byte, id uint32, s uint64) []byte {
	b := buf[:13]
	b[0] = 'o'
	if s%SharedEvery == SharedEvery-1 {
		b[0], id, s = 's', 0, s/SharedEvery
	}
	binary.LittleEndian.PutUint32(b[1:], id)
	binary.LittleEndian.PutUint64(b[5:], s)
	return b
}

// WriterKeys returns keys [from, to) of writer id's sequence.
func WriterKeys(id uint32, from, to uint64) [][]byte {
	keys := make([][]byte, 0, to-from)
	for s := from; s < to; s++ {
		keys = append(keys, WriterKey(make([]byte, 13), id, s))
	}
	return keys
}

// BatchTester answers for many keys at once: a filter or a set.
type BatchTester interface {
	TestBatch(keys [][]byte, present []bool) error
}

// RequireAllPresent requires keys [from, to) of writer id's sequence to
// test present in f.
func RequireAllPresent(t testing.TB, f BatchTester, id uint32, from, to uint64) {
	t.Helper()
	const chunk = 4096
	present := make([]bool, chunk)
	for s := from; s < to; s += chunk {
		end := min(s+chunk, to)
		keys := WriterKeys(id, s, end)
		require.NoError(t, f.TestBatch(keys, present))
		for i, ok := range present[:len(keys)] {
			if !ok {
				require.Failf(t, "false negative", "writer %d key %d of %d tests absent", id, s+uint64(i), to)
			}
		}
	}
}

// Distinct returns the distinct values of locs (bit positions), sorted;
// locs is reused.
func Distinct(locs []uint64) []uint64 {
	slices.Sort(locs)
	return slices.Compact(locs)
}
