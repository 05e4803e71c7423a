// Package keys makes the key sets of the benchmarks: deterministic
// URL-like keys and the real phishing URLs. Each set lives in one
// contiguous buffer, the way keys read from a file would, and hands out
// slices into it.
package keys

// Set is a list of keys stored back to back in one buffer.
type Set struct {
	data []byte
	keys [][]byte
}

// newSet makes a Set over data, whose keys end at the offsets ends
// (key i is data[ends[i-1]:ends[i]], key 0 starts at 0).
func newSet(data []byte, ends []int) *Set {
	s := &Set{data: data, keys: make([][]byte, len(ends))}
	start := 0
	for i, end := range ends {
		s.keys[i] = data[start:end:end]
		start = end
	}
	return s
}

// Len returns the number of keys.
func (s *Set) Len() int { return len(s.keys) }

// Keys returns every key, in order, as slices of the shared buffer that
// must not be written; the batch calls take sub-slices of it.
func (s *Set) Keys() [][]byte { return s.keys }
