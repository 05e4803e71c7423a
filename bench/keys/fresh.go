package keys

import (
	"fmt"
	"math/rand/v2"
)

// Fresh returns n URL-like keys drawn from a random seed, about 60 bytes
// each, such as https://www.host01234.example/path/5ad1e2c9b0f4c71e?q=7:
// keys no earlier run asked, so that the pages they touch in a cold filter
// were read by no earlier run either (the cold benchmarks' keys).
func Fresh(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, "https://www.host%05d.example/path/%016x?q=%d", rand.IntN(100000), rand.Uint64(), i)
	}
	return out
}
